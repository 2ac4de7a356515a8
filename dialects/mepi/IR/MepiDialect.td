// The mepi dialect: matmul with a fused epilog region.
#ifndef MEPI_DIALECT_TD
#define MEPI_DIALECT_TD

include "mlir/IR/OpBase.td"

def Mepi_Dialect : Dialect {
  let name = "mepi";
  let cppNamespace = "::mlir::mepi";
  let summary = "Matrix multiplication with fused epilogs";
  let description = [{
    The mepi dialect describes matrix products `D = epilog(alpha * op(A) * op(B) + beta * C, ...)`
    whose epilog is an ordinary MLIR region run per output element. Built-in epilogs (bias, ReLU,
    GELU, ...) and user epilogs share this one mechanism; kernel generation inlines the region.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                            "::mlir::LLVM::LLVMDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Mepi_Op<string mnemonic, list<Trait> traits = []> : Op<Mepi_Dialect, mnemonic, traits>;

#endif // MEPI_DIALECT_TD
