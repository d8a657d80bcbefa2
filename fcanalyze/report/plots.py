"""The report's plots: solvable share, solution length, nodes searched (boxes and distribution curves by outcome) and fewest cells needed, by free cells."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import LogLocator, NullFormatter

from ..outputs import percent, write_atomically
from ..status import SOLVED, UNSOLVABLE
from .analysis import without_takeback

DPI = 110
# Line styles that tell variants apart where colour tells cell counts apart.
STYLES = ["-", "--", ":", "-."]


def _save(fig, path: Path) -> Path:
    try:
        # savefig takes the format from the name, which the temporary file's lacks; a
        # tight box keeps titles and legends below the axes whole.
        return write_atomically(path, lambda p: fig.savefig(p, dpi=DPI, format="png", bbox_inches="tight"))
    finally:
        plt.close(fig)


def _variants(report) -> list[str]:
    return sorted(report.summary["variant"].unique())


def _colour(variants: list[str], variant: str) -> str:
    """A variant's colour, the same on every plot."""
    return f"C{variants.index(variant)}" if variant in variants else "C7"


def _figure(width: float = 7, panels: int = 1):
    """A figure whose layout makes room for titles, axis labels and a legend below
    (fig.legend "outside"), so that none is cut off or drawn over the data."""
    fig, axes = plt.subplots(
        1, panels, figsize=(width, 4.6), layout="constrained", sharex=panels > 1, sharey=panels > 1
    )
    return fig, axes


def _legend_below(fig, handles=None, ncol: int = 2) -> None:
    """The legend under the plot, where it covers nothing drawn."""
    if handles is None:
        handles = [h for ax in fig.axes for h in ax.get_legend_handles_labels()[0]]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncol=ncol, fontsize=8, frameon=False)


def _cell_axis(ax, cells: list[int], extra: tuple[str, ...] = ()) -> None:
    """The same x axis on every plot: cell count k at x = k, then any extra labels."""
    ticks = list(cells) + [max(cells, default=-1) + 1 + i for i in range(len(extra))]
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(k) for k in cells] + list(extra))
    ax.set_xlim(min(ticks, default=0) - 0.6, max(ticks, default=0) + 0.6)


def _log_axis(axis) -> None:
    """A log axis with every power of ten labelled: the default skips some (10^9 went
    missing on an axis from 1 to 3 billion)."""
    axis.set_major_locator(LogLocator(base=10, numticks=99))
    axis.set_minor_locator(LogLocator(base=10, subs=[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], numticks=99))
    axis.set_minor_formatter(NullFormatter())


def _bar_labels(
    ax, bars, tops: list[float], texts: list[str], vertical: bool, inside_above: float | None = None
) -> None:
    """A label at the top of each bar (`tops`: where each bar, or stack, ends; an empty
    text draws none): upright with one bar per tick, turned on its side when bars stand
    side by side, where upright labels ran into each other. With `inside_above`, a
    label of a bar taller than that goes inside it, in white, and needs no headroom."""
    for bar, top, text in zip(bars, tops, texts):
        if not text:
            continue
        inside = inside_above is not None and top > inside_above
        ax.annotate(
            text,
            (bar.get_x() + bar.get_width() / 2, top),
            xytext=(0, -3 if inside else 2),
            textcoords="offset points",
            ha="center",
            va="top" if inside else "bottom",
            fontsize=7 if vertical else 8,
            rotation=90 if vertical else 0,
            color="white" if inside else "black",
        )


def solvable_share(report) -> Figure:
    """Bars: the share of decided deals that can be won, per cell count (and variant)."""
    variants = _variants(report)
    fig, ax = _figure()
    width = 0.8 / len(variants)
    side_by_side = len(variants) > 1
    for i, variant in enumerate(variants):
        rows = report.summary[report.summary["variant"] == variant].sort_values("cells")
        xs = [c + (i - (len(variants) - 1) / 2) * width for c in rows["cells"]]
        shares = [100 * s if s == s else 0.0 for s in rows["solvable_share"]]
        bars = ax.bar(xs, shares, width=width, label=variant, color=_colour(variants, variant))
        decided = rows[SOLVED] + rows[UNSOLVABLE]
        joiner = " " if side_by_side else "\n"
        texts = [f"{percent(share)}{joiner}(n={n:,})" for share, n in zip(rows["solvable_share"], decided)]
        # Side by side, a tall bar's label goes inside it: above, it ran past the top.
        _bar_labels(ax, bars, shares, texts, vertical=side_by_side, inside_above=55 if side_by_side else None)
    _cell_axis(ax, sorted(int(k) for k in report.summary["cells"].unique()))
    ax.set_xlabel("free cells")
    ax.set_ylabel("winnable deals (% of decided)")
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 20))
    ax.set_title("How many deals can be won, by number of free cells (n: deals decided)")
    if side_by_side:
        _legend_below(fig)
    return fig


def _boxes(ax, data: pd.DataFrame, column: str, variants: list[str], cells: list[int], log: bool) -> list[np.ndarray]:
    """Boxes of `column` per cell count, one per variant side by side, in the variant's
    colour; returns the values drawn."""
    series, positions, colours = [], [], []
    for k in cells:
        for i, variant in enumerate(variants):
            values = data[(data["cells"] == k) & (data["variant"] == variant)][column].dropna()
            if log:
                values = values[values > 0]
            if len(values):
                positions.append(k + (i - (len(variants) - 1) / 2) * 0.8 / len(variants))
                series.append(values.to_numpy(dtype=float))
                colours.append(_colour(variants, variant))
    if series:
        drawn = ax.boxplot(
            series,
            positions=positions,
            widths=0.6 / len(variants),
            showfliers=True,
            patch_artist=True,
            flierprops={"markersize": 2, "alpha": 0.4},
            medianprops={"color": "black"},
        )
        for box, colour in zip(drawn["boxes"], colours):
            box.set_facecolor(colour)
            box.set_alpha(0.6)
    _cell_axis(ax, cells)
    ax.grid(axis="y", alpha=0.3)
    if log:
        ax.set_yscale("log")
        _log_axis(ax.yaxis)
    return series


def _variant_legend(fig, variants: list[str]) -> None:
    if len(variants) > 1:
        _legend_below(fig, [Patch(facecolor=_colour(variants, v), alpha=0.6, label=v) for v in variants])


def moves(report, clip: float = 0.995) -> Figure:
    """Boxes: the solution length of won deals per cell count. The y axis ends at the
    `clip` quantile of all the values (times 1.15), and the values above it are
    counted under the axis, so that a few very long solutions do not squeeze every
    box into one band."""
    data = report.data[report.data["status"] == SOLVED]
    variants = _variants(report)
    cells = sorted(int(k) for k in data["cells"].unique())
    fig, ax = _figure()
    series = _boxes(ax, data, "moves", variants, cells, log=False)
    label = "free cells"
    if series:
        everything = np.concatenate(series)
        top = float(np.quantile(everything, clip)) * 1.15
        above = int((everything > top).sum())
        ax.set_ylim(0, top)
        if above:
            # Under the axis, not on it, where it covered the points.
            label += f"\n({above:,} solution(s) longer than {top:,.0f} moves are off the plot; the longest is {everything.max():,.0f})"
    ax.set_xlabel(label)
    ax.set_ylabel("moves (a sequence move counts as one)")
    ax.set_title("Solution length of won deals, by free cells")
    _variant_legend(fig, variants)
    return fig


def shortest(report) -> Figure:
    """Boxes: the won deals' lines in moves not to a foundation, per cell count, with
    how many of them are proved shortest under each box."""
    data = report.data[(report.data["status"] == SOLVED)]
    if "non_foundation_moves" in data:
        data = data[data["non_foundation_moves"].notna()]
    variants = _variants(report)
    cells = sorted(int(k) for k in data["cells"].unique())
    fig, ax = _figure()
    _boxes(ax, data, "non_foundation_moves", variants, cells, log=False)
    table = report.shortest
    proved = [
        f"{k}\n{int(table[table['cells'] == k]['proved'].sum()):,} proved" if "proved" in table else str(k)
        for k in cells
    ]
    ax.set_xticks(cells, proved)
    ax.set_xlabel("free cells (and lines proved shortest)")
    ax.set_ylabel("moves not to a foundation")
    ax.set_ylim(bottom=0)
    ax.set_title("Length of the won deals' lines, by free cells")
    _variant_legend(fig, variants)
    return fig


def nodes(report) -> Figure:
    """Boxes of nodes searched per cell count, won deals and proofs of loss apart (a
    proof searches every position, a win stops at the first): rows settled without a
    search have no nodes and are not drawn."""
    data = report.data
    variants = _variants(report)
    cells = sorted(int(k) for k in data["cells"].unique())
    fig, axes = _figure(10, panels=2)
    for ax, (status, title) in zip(axes, ((SOLVED, "won deals"), (UNSOLVABLE, "proved lost (searched)"))):
        _boxes(ax, data[data["status"] == status], "nodes", variants, cells, log=True)
        ax.set_title(title)
        ax.set_xlabel("free cells")
    axes[0].set_ylabel("positions expanded (log scale)")
    fig.suptitle("Search effort per job, by free cells and outcome")
    _variant_legend(fig, variants)
    return fig


def nodes_ecdf(report) -> Figure:
    """Distribution curves (empirical CDFs) of nodes searched: for each cell count (a
    colour) and variant (a line style), the share of its searched jobs that took at
    most x positions, won deals and proofs of loss apart."""
    data = report.data[report.data["nodes"].notna() & (report.data["nodes"] > 0)]
    variants = _variants(report)
    cells = sorted((int(k) for k in report.data["cells"].unique()), reverse=True)
    fig, axes = _figure(10, panels=2)
    for ax, (status, title) in zip(axes, ((SOLVED, "won deals"), (UNSOLVABLE, "proved lost (searched)"))):
        mine = data[data["status"] == status]
        for c, k in enumerate(cells):
            for v, variant in enumerate(variants):
                values = np.sort(mine[(mine["cells"] == k) & (mine["variant"] == variant)]["nodes"].to_numpy(float))
                if not len(values):
                    continue
                share = np.arange(1, len(values) + 1) / len(values)
                tag = f"{k} cell{'' if k == 1 else 's'}" + (f", {variant}" if len(variants) > 1 else "")
                ax.step(values, share, where="post", color=f"C{c}", linestyle=STYLES[v % len(STYLES)], label=tag)
        ax.set_xscale("log")
        _log_axis(ax.xaxis)
        ax.set_ylim(0, 1.01)
        ax.grid(alpha=0.3)
        ax.set_title(title)
        ax.set_xlabel("positions expanded (log scale)")
    # How many jobs each curve is of: the report's effort table ('searched'), less any
    # that expanded no position, which a log axis cannot show.
    axes[0].set_ylabel("share of searched jobs with at most x")
    fig.suptitle("How search effort is distributed, by free cells and outcome")
    # One entry per line, the same in both panels: cell counts by colour, variants by style.
    lines: dict[str, Line2D] = {}
    for ax in axes:
        for line in ax.get_lines():
            tag = str(line.get_label())
            lines.setdefault(tag, Line2D([], [], color=line.get_color(), linestyle=line.get_linestyle(), label=tag))
    _legend_below(fig, list(lines.values()), ncol=min(len(lines), 5))
    return fig


def min_cells(report) -> Figure:
    """Bars: how many deals need each number of cells at fewest (exact and upper bounds stacked)."""
    dist = report.min_cells_distribution()
    variants = _variants(report)
    fig, ax = _figure()
    width = 0.8 / len(variants)
    side_by_side = len(variants) > 1
    numbers = sorted(int(k) for k in dist["min_cells"].dropna().unique())
    not_won = bool(dist["min_cells"].isna().any())
    # A deal no count run wins stands right of the largest count.
    where = {k: k for k in numbers}
    beyond = max(numbers, default=-1) + 1
    for i, variant in enumerate(variants):
        mine = dist[dist["variant"] == variant]
        exact = {(-1 if pd.isna(k) else int(k)): int(n) for k, n in zip(mine["min_cells"], mine["deals_exact"])}
        upper = {(-1 if pd.isna(k) else int(k)): int(n) for k, n in zip(mine["min_cells"], mine["deals_upper_bound"])}
        labels = numbers + ([-1] if not_won else [])
        xs = [(where[k] if k >= 0 else beyond) + (i - (len(variants) - 1) / 2) * width for k in labels]
        heights = [exact.get(k, 0) for k in labels]
        tops = [upper.get(k, 0) for k in labels]
        colour = _colour(variants, variant)
        tag = "" if len(variants) == 1 else f"{variant}: "
        ax.bar(xs, heights, width=width, label=f"{tag}exact", color=colour)
        # Hatched and outlined, so that even a sliver of upper bounds stands out.
        drawn = ax.bar(
            xs,
            tops,
            width=width,
            bottom=heights,
            color="white",
            edgecolor=colour,
            hatch="///",
            linewidth=1.2,
            label=f"{tag}at most this many (fewer cells not run or undecided)",
        )
        joiner = " " if side_by_side else "\n"
        # No label where the variant has no deal: a 0 there read as a count it measured.
        texts = [
            f"{e + u:,}" + (f"{joiner}({u:,} at most)" if u else "") if e + u else "" for e, u in zip(heights, tops)
        ]
        _bar_labels(ax, drawn, [e + u for e, u in zip(heights, tops)], texts, vertical=side_by_side)
    top = (dist["deals_exact"] + dist["deals_upper_bound"]).max() if len(dist) else 0
    ax.set_ylim(0, top * (1.6 if side_by_side else 1.25) if top else 1)
    _cell_axis(ax, numbers, ("not won\nat any count run",) if not_won else ())
    ax.set_xlabel("fewest free cells that win the deal")
    ax.set_ylabel("deals")
    ax.set_title("How many free cells each deal needs")
    _legend_below(fig, ncol=1 if side_by_side else 2)
    return fig


def takeback(report) -> Figure:
    """Bars: deals won without take-back and with it, per cell count and take-back variant."""
    table = report.takeback
    variants = sorted(table["variant"].unique())
    fig, ax = _figure()
    bars = [(v, rule) for v in variants for rule in ("won_without", "won_with")]
    width = 0.8 / len(bars)
    for i, (variant, rule) in enumerate(bars):
        rows = table[table["variant"] == variant].sort_values("cells")
        xs = [c + (i - (len(bars) - 1) / 2) * width for c in rows["cells"]]
        label = f"{without_takeback(variant)} (without take-back)" if rule == "won_without" else variant
        drawn = ax.bar(xs, rows[rule], width=width, label=label, hatch="" if rule == "won_without" else "//")
        texts = [f"{won:,}" + (f"\n(+{gained:,})" if rule == "won_with" else "")
                 for won, gained in zip(rows[rule], rows["won_only_with_takeback"])]  # fmt: skip
        _bar_labels(ax, drawn, list(rows[rule]), texts, vertical=False)
    _cell_axis(ax, sorted(int(k) for k in table["cells"].unique()))
    ax.set_xlabel("free cells")
    ax.set_ylabel("deals won")
    ax.set_ylim(0, 1.2 * max(table["decided_both_ways"].max(), 1))
    ax.set_title("Deals won with and without foundation take-back")
    _legend_below(fig)
    return fig


def figures(report) -> dict[str, Figure]:
    """The plots by file name, in the order report.md shows them (take-back's last,
    when there is one)."""
    drawn = {
        "solvable_share.png": solvable_share(report),
        "moves.png": moves(report),
        **({"shortest.png": shortest(report)} if report.has_shortest() else {}),
        "nodes.png": nodes(report),
        "nodes_ecdf.png": nodes_ecdf(report),
        "min_cells.png": min_cells(report),
    }
    if len(report.takeback):
        drawn["takeback.png"] = takeback(report)
    return drawn


def draw_all(report, out: Path) -> list[Path]:
    """Writes the plots into `out`."""
    return [_save(fig, out / name) for name, fig in figures(report).items()]
