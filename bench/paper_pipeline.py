#!/usr/bin/python3
"""Benchmark baseline: the seven non-plotting steps of the paper's run_all.sh.

Re-creates, with pandas, what the analysis scripts of "Streaming Large-Scale
Microscopy Data to a Supercomputing Facility" (Welborn et al., 2024) compute:

  1. join_columns_from_db        -> OUT/file_transfer/merged_job_info.csv
  2. offload_times               -> OUT/file_transfer/ncem_offload_times.csv
  3. join_streaming_data         -> OUT/streaming/streaming_times_{size}.csv
  4. rank_the_worst_days         -> OUT/outputs/ranked_days.csv, ranked_days_by_month.csv
  5. statistics_queue_time       -> OUT/outputs/queue_time_statistics.csv (+ the paper's .txt files)
  6. statistics_transfer_times   -> OUT/outputs/statistics_transfers_{size}.csv
  7. statistics_comparison_table -> OUT/outputs/statistics_table.tex (also printed)

The paper ran each step as its own `python step.py` process; run.sh does the
same (`paper_pipeline.py STEP DATA OUT`, seven times).  Steps 4-7 read what the
earlier steps wrote into OUT, as the paper's scripts read each other's files.
Raw inputs are only read from DATA (the paper's data/ folder), never written.

Usage: paper_pipeline.py STEP|all [DATA [OUT]]
  STEP is a number 1-7 or a step name; DATA defaults to ../shared/paper-data
  relative to the repository root, OUT to out/paper_pipeline under the root.
"""
import sys
from datetime import datetime
from pathlib import Path

import pandas as pd

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO_ROOT / ".." / "shared" / "paper-data"
DEFAULT_OUT = REPO_ROOT / "out" / "paper_pipeline"

SIZES = ["128", "256", "512", "1024"]

# Offload experiments (scan number ranges in write_times.csv), paper section / SPEC 4.5.
OFFLOAD_SCANS = {
    "128": {"start": 4858, "end": 4887},
    "256": {"start": 4828, "end": 4857},
    "512": {"start": 4798, "end": 4827},
    "1024": {"start": 4768, "end": 4797},
}

# Streaming experiments: file of NERSC HDF5 mtimes per size.
STREAMING_H5 = {
    "128": "scan_times_2709_3688.csv",
    "256": "scan_times_3813_4226.csv",
    "512": "scan_times_4227_4644.csv",
    "1024": "scan_times_4653_4698.csv",
}


# --------------------------------------------------------------------------
# 1. file_transfer/join_columns_from_db.py
# --------------------------------------------------------------------------
def join_columns_from_db(data, out):
    ft = data / "file_transfer"
    jobs = pd.read_csv(ft / "slurm_job_info.csv")

    parts = []
    for s in SIZES:
        df = pd.read_csv(ft / "distiller_db" / f"{s}_{s}.csv")
        df["size"] = int(s)
        parts.append(df)
    db = pd.concat(parts, ignore_index=True)

    merged = pd.merge(jobs, db, how="left", left_on="Job ID", right_on="slurm_id")
    merged.drop("slurm_id", axis=1, inplace=True)
    merged.dropna(subset=["id", "size"], inplace=True)
    merged["elapsed"] = pd.to_timedelta(merged["elapsed"])
    merged = merged[merged["elapsed"] <= pd.Timedelta(minutes=29)]

    (out / "file_transfer").mkdir(parents=True, exist_ok=True)
    merged.to_csv(out / "file_transfer" / "merged_job_info.csv", index=False)


# --------------------------------------------------------------------------
# 2. file_transfer/offload_times.py
# --------------------------------------------------------------------------
def _offload_time(row):
    # The paper parsed each row in Python (DataFrame.apply) with fromisoformat.
    times = [datetime.fromisoformat(row[f"time{i}"].replace("Z", "+00:00")) for i in range(4)]
    last = datetime.fromisoformat(row["time_last_written"].replace("Z", "+00:00"))
    return (last - min(times)).total_seconds()


def offload_times(data, out):
    wt = pd.read_csv(data / "file_transfer" / "write_times.csv")
    wt["offload_time"] = wt.apply(_offload_time, axis=1)

    rows = []
    for size, r in OFFLOAD_SCANS.items():
        sel = wt[(wt["scan_number"] >= r["start"]) & (wt["scan_number"] <= r["end"])]
        rows.append({"size": size, "offload_time": sel["offload_time"].mean()})

    (out / "file_transfer").mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "file_transfer" / "ncem_offload_times.csv", index=False)


# --------------------------------------------------------------------------
# 3. streaming/join_streaming_data.py
# --------------------------------------------------------------------------
def join_streaming_data(data, out):
    import pytz  # the paper's script imports it; pandas depends on it anyway

    st = data / "streaming"
    (out / "streaming").mkdir(parents=True, exist_ok=True)
    for size, h5_name in STREAMING_H5.items():
        # The paper re-read the created-times file for every size.
        h5 = pd.read_csv(st / h5_name)
        created = pd.read_csv(st / "ncem_file_created_times.csv")

        m = pd.merge(h5, created, on="scan_number", how="inner")
        m.rename(columns={"datetime": "nersc_write_time"}, inplace=True)
        m["nersc_write_time"] = pd.to_datetime(m["nersc_write_time"])
        cols = ["time0", "time1", "time2", "time3"]
        for c in cols:
            m[c] = pd.to_datetime(m[c])
        m["ncem_created_time"] = m[cols].min(axis=1)
        m.drop(cols, axis=1, inplace=True)
        # The paper's fixed shift: UTC -> naive, then minus 7 h (PDT in October 2023).
        m["ncem_created_time"] = m["ncem_created_time"].dt.tz_convert(pytz.UTC).dt.tz_localize(
            None
        ) - pd.Timedelta(hours=7)
        m["time_difference_seconds"] = (
            (m["ncem_created_time"] - m["nersc_write_time"]).dt.total_seconds().abs()
        )
        m.to_csv(out / "streaming" / f"streaming_times_{size}.csv", index=False)


# --------------------------------------------------------------------------
# 4. queue_time/rank_the_worst_days.py
# --------------------------------------------------------------------------
def _queue_frame(out):
    df = pd.read_csv(out / "file_transfer" / "merged_job_info.csv")
    df["Submit"] = pd.to_datetime(df["Submit"])
    df["Start"] = pd.to_datetime(df["Start"])
    df["queue_time"] = (df["Start"] - df["Submit"]).dt.total_seconds()
    return df.dropna(subset=["queue_time"])


def rank_the_worst_days(data, out):
    df = _queue_frame(out)
    df["Submit_date"] = df["Submit"].dt.date

    g = df.groupby("Submit_date")["queue_time"].mean().reset_index()
    g = g.sort_values("queue_time", ascending=False)
    (out / "outputs").mkdir(parents=True, exist_ok=True)
    g.to_csv(out / "outputs" / "ranked_days.csv", index=False)

    df["Submit_month_year"] = df["Submit"].dt.to_period("M")
    g = df.groupby(["Submit_month_year", "Submit_date"])["queue_time"].mean().reset_index()
    g = g.sort_values(["Submit_month_year", "queue_time"], ascending=[True, True])
    g.to_csv(out / "outputs" / "ranked_days_by_month.csv", index=False)


# --------------------------------------------------------------------------
# 5. queue_time/statistics_queue_time.py
# --------------------------------------------------------------------------
def _describe(x):
    return {
        "n": len(x),
        "mean": x.mean(),
        "median": x.median(),
        "std": x.std(),
        "min": x.min(),
        "max": x.max(),
        "q25": x.quantile(0.25),
        "q75": x.quantile(0.75),
    }


def _remove_outliers(x):
    q1 = x.quantile(0.25)
    q3 = x.quantile(0.75)
    iqr = q3 - q1
    return x[~((x < (q1 - 1.5 * iqr)) | (x > (q3 + 1.5 * iqr)))]


def statistics_queue_time(data, out):
    q = _queue_frame(out)["queue_time"]
    stats = {
        "with_outliers": _describe(q),
        "without_outliers": _describe(_remove_outliers(q)),
    }
    (out / "outputs").mkdir(parents=True, exist_ok=True)
    df = pd.DataFrame.from_dict(stats, orient="index")
    df.index.name = "statistics"
    df.to_csv(out / "outputs" / "queue_time_statistics.csv")

    # The paper's own output: two text reports (it appended; we start fresh).
    for key, title in (("with_outliers", "Statistics with Outliers"),
                       ("without_outliers", "Statistics without Outliers")):
        s = stats[key]
        text = (
            f"{title}\n"
            f"Mean time: {s['mean']} seconds\n"
            f"Median time: {s['median']} seconds\n"
            f"Standard Deviation: {s['std']} seconds\n"
            f"Minimum time: {s['min']} seconds\n"
            f"Maximum time: {s['max']} seconds\n"
            f"25th percentile: {s['q25']} seconds\n"
            f"75th percentile: {s['q75']} seconds\n"
            "--------------------------------------------\n"
        )
        (out / "outputs" / f"queue_time_statistics_{key}.txt").write_text(text)


# --------------------------------------------------------------------------
# 6. compare/statistics_transfer_times.py
# --------------------------------------------------------------------------
def _transfer_stats(x, size):
    s = _describe(x)
    return {
        "Size": size,
        "Number of Points": s["n"],
        "Mean time": s["mean"],
        "Median time": s["median"],
        "Standard Deviation": s["std"],
        "Minimum time": s["min"],
        "Maximum time": s["max"],
        "25th percentile": s["q25"],
        "75th percentile": s["q75"],
    }


def statistics_transfer_times(data, out):
    merged = pd.read_csv(out / "file_transfer" / "merged_job_info.csv")
    off = pd.read_csv(out / "file_transfer" / "ncem_offload_times.csv")
    offload = dict(zip(off["size"], off["offload_time"]))

    save = pd.read_csv(data / "file_transfer" / "save_time_stats.csv")
    piv = save[save["Stat"] == "mean"].pivot(index="Size", columns="Type", values="save_time")
    piv["overhead"] = piv["Real"] - piv["Blank"]
    overhead = piv["overhead"].to_dict()

    streaming = {
        size: pd.read_csv(out / "streaming" / f"streaming_times_{size}.csv") for size in SIZES
    }

    (out / "outputs").mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        stats = {}
        st = streaming[size]["time_difference_seconds"]
        stats[f"Statistics for {size}x{size} Streaming with Outliers"] = _transfer_stats(st, size)
        stats[f"Statistics for {size}x{size} Streaming without Outliers"] = _transfer_stats(
            _remove_outliers(st), size
        )

        rows = merged[merged["size"] == float(size)]
        ft = pd.to_timedelta(rows["Elapsed"]).dt.total_seconds()
        ft += offload.get(int(size), 0)
        ft -= overhead.get(int(size), 0) * 2  # two HDF5 saves the streaming path avoids
        stats[f"Statistics for {size}x{size} Original with Outliers"] = _transfer_stats(ft, size)
        stats[f"Statistics for {size}x{size} Original without Outliers"] = _transfer_stats(
            _remove_outliers(ft), size
        )

        df = pd.DataFrame.from_dict(stats, orient="index")
        df.index.name = "Statistics"
        df.to_csv(out / "outputs" / f"statistics_transfers_{size}.csv")


# --------------------------------------------------------------------------
# 7. compare/statistics_comparison_table.py
# --------------------------------------------------------------------------
def _data_gb(size):
    s = int(size)
    return s * s * 576 * 576 * (16 / 8) * 1e-9


def statistics_comparison_table(data, out):
    caption = "Comparison of file transfer and streaming times for various data dimensions."
    lines = [
        r"\begin{table}[H]",
        r"\caption{" + caption + "}",
        r"\centering",
        r"\renewcommand{\arraystretch}{1}",
        r"\begin{tabular}{ccccc}",
        r"\toprule",
        r"Data Dimension & Data Size (GB) & \makecell{File Transfer (s) \\ ($\mu_{ft} \pm \sigma_{ft}$)}"
        r" & \makecell{Streaming (s) \\ ($\mu_{s} \pm \sigma_{s}$)}"
        r" & \makecell{Enhancement \\ ($\mu_{ft}/\mu_{s}$)} \\",
        r"\midrule",
    ]
    for size in (128, 256, 512, 1024):
        df = pd.read_csv(out / "outputs" / f"statistics_transfers_{size}.csv")
        st = df[df["Statistics"].str.contains("Streaming without Outliers")]
        ft = df[df["Statistics"].str.contains("Original without Outliers")]
        st_mean = st["Mean time"].values[0]
        st_std = st["Standard Deviation"].values[0]
        ft_mean = ft["Mean time"].values[0]
        ft_std = ft["Standard Deviation"].values[0]
        enh = ft_mean / st_mean
        gb = _data_gb(size)
        lines.append(
            f"{size} x {size} x 576 x 576 & {int(gb)} GB & ${ft_mean:.1f} \\pm {ft_std:.1f}$"
            f" & ${st_mean:.1f} \\pm {st_std:.1f}$ & {enh:.1f} \\\\"
        )
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        r"\label{tab:transfer_count_comparison}",
        r"\end{table}",
    ]
    text = "\n".join(lines)
    (out / "outputs").mkdir(parents=True, exist_ok=True)
    (out / "outputs" / "statistics_table.tex").write_text(text)
    print(text)


STEPS = [
    join_columns_from_db,
    offload_times,
    join_streaming_data,
    rank_the_worst_days,
    statistics_queue_time,
    statistics_transfer_times,
    statistics_comparison_table,
]
BY_NAME = {f.__name__: f for f in STEPS}


def main(argv):
    if len(argv) < 2 or len(argv) > 4 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__.split("\n\n")[-1] + "\nsteps: " + " ".join(BY_NAME) + "\n")
        return 2
    step = argv[1]
    data = Path(argv[2]) if len(argv) > 2 else DEFAULT_DATA
    out = Path(argv[3]) if len(argv) > 3 else DEFAULT_OUT
    if not (data / "file_transfer").is_dir() or not (data / "streaming").is_dir():
        sys.stderr.write(f"paper_pipeline: {data}: not the paper's data folder "
                         "(needs file_transfer/ and streaming/)\n")
        return 2
    if step == "all":
        todo = STEPS
    elif step.isdigit() and 1 <= int(step) <= len(STEPS):
        todo = [STEPS[int(step) - 1]]
    elif step in BY_NAME:
        todo = [BY_NAME[step]]
    else:
        sys.stderr.write(f"paper_pipeline: unknown step '{step}'\n")
        return 2
    for f in todo:
        f(data, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
