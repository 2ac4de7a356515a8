# Repoints the imported LLVM target (MLIR's exported targets link it as the shared libLLVM, which
# drags in z3, xml2, icu, libedit) at a GNU ld script over the static libLLVM*.a archives, so the
# binaries need only libc, libstdc++, libz and libzstd and run on the device machine as they are.
find_program(MEPI_LLVM_CONFIG NAMES llvm-config-22 llvm-config HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
execute_process(COMMAND ${MEPI_LLVM_CONFIG} --link-static --libfiles
                OUTPUT_VARIABLE _mepi_llvm_libfiles OUTPUT_STRIP_TRAILING_WHITESPACE
                COMMAND_ERROR_IS_FATAL ANY)
separate_arguments(_mepi_llvm_libfiles UNIX_COMMAND "${_mepi_llvm_libfiles}")
# llvm-config also names archives Debian does not ship (e.g. libPolly.a); keep those that exist.
set(_mepi_llvm_archives)
foreach(_lib IN LISTS _mepi_llvm_libfiles)
  if(EXISTS "${_lib}")
    list(APPEND _mepi_llvm_archives "${_lib}")
  endif()
endforeach()
string(JOIN " " _mepi_group ${_mepi_llvm_archives})
set(_mepi_script "${CMAKE_BINARY_DIR}/lib/libLLVM-static.so")
file(WRITE "${_mepi_script}" "/* GNU ld script: static LLVM for mepi */\nGROUP( ${_mepi_group} -lz -lzstd )\n")
get_target_property(_mepi_cfgs LLVM IMPORTED_CONFIGURATIONS)
foreach(_cfg IN LISTS _mepi_cfgs)
  set_target_properties(LLVM PROPERTIES IMPORTED_LOCATION_${_cfg} "${_mepi_script}"
                                        IMPORTED_NO_SONAME_${_cfg} TRUE)
endforeach()
set_target_properties(LLVM PROPERTIES IMPORTED_LOCATION "${_mepi_script}" IMPORTED_NO_SONAME TRUE)
message(STATUS "mepi: linking LLVM statically (${_mepi_script})")
