# Per-kernel task counts and mean durations, every potrf task, and the span, from a StarPU tasks.rec
# (starpu_chol --trace DIR writes DIR/tasks.rec):  awk -f tools/task_stats.awk DIR/tasks.rec
BEGIN { RS = ""; FS = "\n" }
{
    name = ""; s = 0; e = 0
    for (i = 1; i <= NF; i++) {
        if ($i ~ /^Name: /) name = substr($i, 7)
        else if ($i ~ /^StartTime: /) s = substr($i, 12) + 0
        else if ($i ~ /^EndTime: /) e = substr($i, 10) + 0
    }
    if (name == "") next
    if (min == "" || s < min) min = s
    if (e > max) max = e
    if (name ~ /^potrf/) printf "%s %.3f ms (start %.3f)\n", name, e - s, s
    split(name, p, "("); sum[p[1]] += e - s; cnt[p[1]]++
}
END { for (k in sum) printf "%s: %d tasks, mean %.3f ms\n", k, cnt[k], sum[k] / cnt[k]; printf "span %.3f ms\n", max - min }
