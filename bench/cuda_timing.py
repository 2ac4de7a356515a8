# The median time of a mepi.Matmul's execute() by CUDA events, after 5 warm-up runs (the FP8
# cost scripts beside it import it).
import torch


def median_ms(mm, reps=30):
    for _ in range(5):
        mm.execute()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); mm.execute(); e.record(); e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]
