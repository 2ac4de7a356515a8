"""python -m mepi.bench's timing without a GPU: a fake torch records the order of the calls."""
import types

import mepi.bench


def fake_torch(log):
    class Event:
        count = 0

        def __init__(self, enable_timing):
            Event.count += 1
            self.at = Event.count

        def record(self):
            log.append(("record", self.at))

        def synchronize(self):
            log.append(("event-sync", self.at))

        def elapsed_time(self, other):
            return float(other.at - self.at)

    cuda = types.SimpleNamespace(Event=Event, _sleep=lambda c: log.append(("sleep", c)),
                                 synchronize=lambda: log.append(("sync",)))
    return types.SimpleNamespace(cuda=cuda)


def timed(gate):
    log = []
    saved = mepi.bench._gate_cycles
    mepi.bench._gate_cycles = gate
    try:
        mepi.bench._median_ms(fake_torch(log), lambda i: log.append(("run", i)), 2, 4)
    finally:
        mepi.bench._gate_cycles = saved
    return log


def test_gated_launches_queue_behind_a_spin_kernel_without_host_waits():
    log = timed(1000)
    timed_part = log[log.index(("sync",)) + 1:]
    assert timed_part[0] == ("sleep", 20000)  # the host gets ahead first
    runs = [i for i, call in enumerate(timed_part) if call[0] == "run"]
    assert len(runs) == 4
    for i in runs:  # each launch: a gate, its start event, the launch, its stop event
        assert timed_part[i - 2] == ("sleep", 1000)
        assert timed_part[i - 1][0] == "record" and timed_part[i + 1][0] == "record"
    assert not any(call[0] == "event-sync" for call in timed_part)
    assert timed_part[-1] == ("sync",)


def test_ungated_launches_wait_for_each_stop_event():
    log = timed(None)
    assert not any(call[0] == "sleep" for call in log)
    assert sum(call[0] == "event-sync" for call in log) == 4
