// #mepi.kernel_config verifies the wgmma family's constraints.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{expected tile_m 64, 128, 192 or 256 for wgmma, got 512}}
func.func private @m() attributes {c = #mepi.kernel_config<wgmma, tile = [512, 128, 64], mainloop = <stages = 4>>}

// -----

// expected-error @+1 {{expected tile_n at most 128 and 1 split for 256-row wgmma tiles (each consumer holds two 64-row slices), got tile_n 256 and 1 splits}}
func.func private @m256() attributes {c = #mepi.kernel_config<wgmma, tile = [256, 256, 64], mainloop = <stages = 4>>}

// -----

// expected-error @+1 {{expected tile_n a multiple of 8 up to 256 for wgmma, got 260}}
func.func private @n() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 260, 64], mainloop = <stages = 4>>}

// -----

// expected-error @+1 {{expected tile_k 32, 64 or 128 for wgmma (one 128-byte line of K), got 48}}
func.func private @k() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 128, 48], mainloop = <stages = 4>>}

// -----

// expected-error @+1 {{expected 2 to 8 stages for wgmma, got 1}}
func.func private @stages() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 128, 64]>}

// -----

// expected-error @+1 {{expected 1 stage for simt, got 3}}
func.func private @simt() attributes {c = #mepi.kernel_config<simt, tile = [16, 16, 1], mainloop = <stages = 3>>}

// -----

// expected-error @+2 {{expected 2 to 32 splits for split_k, got 0}}
// expected-error @+1 {{failed to parse Mepi_KernelConfigAttr parameter 'scheduler' which is to be a `SchedulerConfigAttr`}}
func.func private @no_splits() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4>, scheduler = <split_k, splits = 0>>}

// -----

// expected-error @+1 {{expected the data_parallel scheduler for simt, got split_k}}
func.func private @simt_splits() attributes {c = #mepi.kernel_config<simt, tile = [16, 16, 1], mainloop = <stages = 1>, scheduler = <split_k, splits = 2>>}

// -----

// A ping-pong consumer holds the whole tile's accumulators.
// expected-error @+1 {{expected tile_m * tile_n at most 16384 for a ping-pong wgmma kernel (one warpgroup holds the whole tile), got 128 x 256}}
func.func private @pingpong_tile() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, pingpong = true>>}

// -----

// expected-error @+1 {{expected 1 split for a ping-pong wgmma kernel, got 2}}
func.func private @pingpong_splits() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4, pingpong = true>, scheduler = <split_k, splits = 2>>}

// -----

// expected-error @+1 {{expected no pingpong, cluster or store setting for simt}}
func.func private @pingpong_simt() attributes {c = #mepi.kernel_config<simt, tile = [16, 16, 1], mainloop = <pingpong = true>>}

// -----

// A cluster multicasts B through TMA: with ordinary loads there is nothing to multicast.
// expected-error @+1 {{expected a cluster only with TMA loads}}
func.func private @cluster_without_tma() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4, tma = false, cluster = 2>, scheduler = <split_k, splits = 2>>}

// -----

// TMA stores of D take the tensor-map path of a TMA kernel.
// expected-error @+1 {{expected store = tma only with TMA loads}}
func.func private @tma_store_without_tma() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, tma = false>, epilogue = <store = tma>>}

// -----

// expected-error @+1 {{expected no pingpong, cluster or store setting for simt}}
func.func private @store_simt() attributes {c = #mepi.kernel_config<simt, tile = [16, 16, 1], epilogue = <store = registers>>}

// -----

// expected-error @+1 {{expected tile_m a multiple of 8 from 16 to 256 for a swapped wgmma kernel, got 100}}
func.func private @swapped_tile() attributes {c = #mepi.kernel_config<wgmma, tile = [100, 64, 64], mainloop = <stages = 4>, swapped = true>}

// -----

// expected-error @+1 {{expected tile_m a multiple of 8 from 16 to 256 for a swapped wgmma kernel, got 264}}
func.func private @swapped_tile_tall() attributes {c = #mepi.kernel_config<wgmma, tile = [264, 64, 64], mainloop = <stages = 4>, swapped = true>}

// -----

// expected-error @+1 {{expected no pingpong and no store other than tma for a swapped wgmma kernel}}
func.func private @swapped_pingpong() attributes {c = #mepi.kernel_config<wgmma, tile = [16, 64, 64], mainloop = <stages = 16, pingpong = true>, swapped = true>}

// -----

// A swapped kernel's cluster pairs two tile rows that share B's tile.
// expected-error @+1 {{expected no cluster or a cluster of 2 sharing B (multicast along M) for a swapped wgmma kernel, got cluster 2}}
func.func private @swapped_cluster_a() attributes {c = #mepi.kernel_config<wgmma, tile = [16, 64, 64], mainloop = <stages = 16, cluster = 2, multicast = a>, swapped = true>}

// -----

// expected-error @+1 {{expected no cluster or a cluster of 2 sharing B (multicast along M) for a swapped wgmma kernel, got cluster 4}}
func.func private @swapped_cluster_4() attributes {c = #mepi.kernel_config<wgmma, tile = [16, 64, 64], mainloop = <stages = 16, cluster = 4, multicast = ab>, swapped = true>}

// -----

// Stream-K cuts the units of a cooperative kernel whose consumers hold one 64-row slice each.
// expected-error @+1 {{expected stream_k only for a cooperative wgmma kernel (not swapped or ping-pong, tile_m 64 or 128)}}
func.func private @streamk_pingpong() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>, scheduler = <stream_k>>}

// -----

// A scheduler checks its own settings: splits belong to split-K.
// expected-error @+2 {{expected splits only with split_k, got 2 with stream_k}}
// expected-error @+1 {{failed to parse Mepi_KernelConfigAttr parameter 'scheduler' which is to be a `SchedulerConfigAttr`}}
func.func private @streamk_splits() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, scheduler = <stream_k, splits = 2>>}

// -----

// expected-error @+1 {{expected stream_k only for a cooperative wgmma kernel (not swapped or ping-pong, tile_m 64 or 128)}}
func.func private @streamk_tall() attributes {c = #mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>, scheduler = <stream_k>>}

// -----

// The epilogue checks its own settings: one or two TMA store buffers, and only for TMA stores.
// expected-error @+2 {{expected 1 or 2 TMA store buffers, got 3}}
// expected-error @+1 {{failed to parse Mepi_KernelConfigAttr parameter 'epilogue' which is to be a `EpilogueConfigAttr`}}
func.func private @three_buffers() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma, buffers = 3>>}

// -----

// expected-error @+2 {{expected buffers only with store = tma, got 1 with store = staged}}
// expected-error @+1 {{failed to parse Mepi_KernelConfigAttr parameter 'epilogue' which is to be a `EpilogueConfigAttr`}}
func.func private @staged_buffers() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <buffers = 1>>}

// -----

// expected-error @+1 {{expected the data_parallel scheduler for simt, got stream_k}}
func.func private @streamk_simt() attributes {c = #mepi.kernel_config<simt, tile = [16, 16, 1], scheduler = <stream_k>>}

// -----

// expected-error @+1 {{expected tile_k 64 or 128 for a swapped wgmma kernel (one 128-byte line of 16- or 8-bit K), got 32}}
func.func private @swapped_tf32() attributes {c = #mepi.kernel_config<wgmma, tile = [64, 128, 32], mainloop = <stages = 4>, swapped = true>}

// -----

// expected-error @+1 {{expected promote 0, or > 0 for wgmma, got 2}}
func.func private @promote_simt() attributes {c = #mepi.kernel_config<simt, tile = [16, 16, 1], mainloop = <promote = 2>>}

// -----

// The parts check their own settings, whatever the tile: the main loop's cluster, stages and
// promotion interval, the scheduler's split count.
// expected-error @+1 {{expected a cluster of 1 or 2 blocks (4 or 8 with multicast = ab), got 4}}
func.func private @mainloop_cluster() attributes {c = #mepi.mainloop<stages = 4, cluster = 4>}

// -----

// Both operands shared: 2 tile rows by 2 or 4 tile columns.
// expected-error @+1 {{expected a cluster of 4 or 8 blocks with multicast = ab, got 2}}
func.func private @mainloop_cluster_ab() attributes {c = #mepi.mainloop<stages = 4, cluster = 2, multicast = ab>}

// -----

// The 2-D cluster's walk is generated for whole units of the cooperative kernel only.
// expected-error @+1 {{expected multicast = ab only for whole units of a cooperative wgmma kernel (no ping-pong, split_k or stream_k)}}
func.func private @cluster_ab_split_k() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 64, 64], mainloop = <stages = 4, cluster = 8, multicast = ab>, scheduler = <split_k, splits = 2>>}

// -----

// expected-error @+1 {{expected multicast = ab only for whole units of a cooperative wgmma kernel (no ping-pong, split_k or stream_k)}}
func.func private @cluster_ab_pingpong() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 64, 64], mainloop = <stages = 4, pingpong = true, cluster = 4, multicast = ab>>}

// -----

// Without a cluster no tile is shared: multicast = a needs one.
// expected-error @+1 {{expected multicast = a only with a cluster of 2}}
func.func private @multicast_without_cluster() attributes {c = #mepi.mainloop<stages = 4, multicast = a>}

// -----

// expected-error @+2 {{expected at least 1 stage, got 0}}
// expected-error @+1 {{failed to parse Mepi_KernelConfigAttr parameter 'mainloop' which is to be a `MainloopConfigAttr`}}
func.func private @mainloop_stages() attributes {c = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 0>>}

// -----

// expected-error @+1 {{expected promote 0 or more k-steps, got -1}}
func.func private @mainloop_promote() attributes {c = #mepi.mainloop<stages = 4, promote = -1>}

// -----

// expected-error @+1 {{expected 2 to 32 splits for split_k, got 33}}
func.func private @scheduler_splits() attributes {c = #mepi.scheduler<split_k, splits = 33>}

// -----

// expected-error @+1 {{expected splits only with split_k, got 3 with data_parallel}}
func.func private @scheduler_data_parallel() attributes {c = #mepi.scheduler<data_parallel, splits = 3>}
