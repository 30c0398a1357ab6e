"""timeline.py on a hand-made trace (CPU, standard library and pytest only)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import timeline  # noqa: E402

MS = 1000000  # ns


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def test_windows_busy_and_gaps(tmp_path, capsys):
    # Two runs, each after an upload of 16 MB: the second has a gemm on stream 7 from 0 to 4 ms overlapping a trsm
    # on stream 8 from 2 to 5 ms, then a gap of 1 ms and a 1 ms copy back: wall 7 ms, busy 6, idle 1.
    t = 100 * MS
    lines = ["M,%d,%d,3,copy1_16000000" % (0, MS), "K,%d,%d,7,first_run_kernel" % (2 * MS, 3 * MS),
             "M,%d,%d,3,copy1_16000000" % (t - 2 * MS, t - MS),
             "K,%d,%d,8,trsm_left_kernel" % (t + 2 * MS, t + 5 * MS), "K,%d,%d,7,xmma_gemm" % (t, t + 4 * MS),
             "M,%d,%d,3,copy2_4" % (t + 6 * MS, t + 7 * MS), "junk line"]
    trace = tmp_path / "t.csv"
    write(trace, lines)
    events = timeline.load(str(trace))
    assert len(events) == 6 and events[0][0] == 0  # sorted by start, the junk line skipped
    wins = timeline.windows(events, 8 * 10**6)
    assert [len(w) for w in wins] == [1, 3]
    timeline.main([str(trace), "--buckets", "2", "--csv", str(tmp_path / "w.csv")])
    out = capsys.readouterr().out
    assert "2 window(s)" in out
    assert "wall 7.000 ms, busy 6.000 ms (85.7%), idle 1.000 ms, 3 activities" in out
    assert "gaps over  100 us:     1, 1.000 ms in all" in out
    # buckets of 2 ms: 0-2 the gemm alone (100%), 2-4 gemm and trsm (200%), 4-6 trsm 1 ms (50%), 6-8 the copy (50%)
    assert "0.0 ms   100%" in out and "2.0 ms   200%" in out and "4.0 ms    50%" in out and "6.0 ms    50%" in out
    rows = (tmp_path / "w.csv").read_text().splitlines()
    assert rows[0] == "start_us,end_us,stream,name" and rows[1] == "0.000,4000.000,7,xmma_gemm"


def test_no_upload_is_one_window_and_bad_window_exits(tmp_path):
    trace = tmp_path / "t.csv"
    write(trace, ["K,0,%d,1,a" % MS, "K,%d,%d,1,b" % (2 * MS, 3 * MS)])
    assert len(timeline.windows(timeline.load(str(trace)), 1)) == 1
    run = subprocess.run([sys.executable, os.path.join(HERE, "timeline.py"), str(trace), "--window", "2"],
                         capture_output=True, text=True)
    assert run.returncode != 0 and "there are 1 windows" in run.stderr
