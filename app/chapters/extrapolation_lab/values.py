"""The extrapolation lab's shown values: every number and text of its trained-results panels
(app.chapters.extrapolation_lab.trained) as a span's text, read from the shipped records' summary
(gleam.examples.extrapolation_lab_trained); a reach at the largest value tested reads "≥"."""
from gleam_lab.app.chapters.memory_lab.trained import interval, listed, pm, whole
from gleam_lab.app.widgets.seeds import CELLS
from gleam_lab.content import fmt_comma, fmt_fixed, fmt_sci

KEY = "extrapolation.trained"


def reach(v, edge):
    return "none" if v < 0 else f"≥ {edge}" if v >= edge else str(int(v))


def reaches(c):
    """A censored summary's values: "≥ edge" where censored."""
    return ", ".join(f"≥ {c['edge']}" if f else reach(v, c["edge"] + 1) for v, f in zip(c["values"], c["censored"])) or "—"


def difference(d):
    return interval(d) if d["difference"] is not None else f"— ({d['why']})"


def pair_name(pair):
    return " − ".join(CELLS[c] for c in pair.split("-"))


def schedule(b):
    """A learning-rate schedule in words: constant, or dropped once at a validation score."""
    if b["lr_drop_at"] is None:
        return f"{b['lr']:g}, constant"
    return f"{b['lr']:g}, ×{b['lr_drop']:g} at the first validation check ≥ {b['lr_drop_at']:g}"


def budget(b, epochs=None):
    """A budget tried: its cap (in epochs where it had one) and its schedule."""
    cap = f"{epochs} epochs (at most {fmt_comma(b['cap'])} updates)" if epochs else f"a cap of {fmt_comma(b['cap'])} updates"
    return f"{cap}, lr {schedule(b)}"


def base_values(k, g):
    out = {f"{k}.learned": f"{g['learned']} of {g['runs']}", f"{k}.heldin": pm(g["heldin"], 3),
           f"{k}.heldin_seeds": listed(g["heldin"]["values"], 3)}
    if g["other_seeds"]:
        out.update({f"{k}.apart.seeds": whole(g["other_seeds"]), f"{k}.apart.heldin": listed(g["apart_heldin"], 3)})
    return out



def shown_values(d, published):
    """Every number and text the panels show, as spans keyed under KEY: `d` the summary
    (gleam.examples.extrapolation_lab_trained), `published` its claims per experiment."""
    ld, ct, pr, sm, ar = d["length_depth"], d["counting"], d["predict"], d["sums"], d["arith"]
    out = {f"{KEY}.criterion": fmt_fixed(d["criterion"], 2), f"{KEY}.stop_at": fmt_fixed(d["stop_at"], 2),
           f"{KEY}.ld.constant": fmt_fixed(ld["constant"], 2)}
    for c, g in ld["cells"].items():
        k = f"{KEY}.ld.{c}"
        out.update(base_values(k, g))
        ol = g["over_learned"]
        if ol:
            out.update({f"{k}.length_reach": reaches(ol["length_reach"]), f"{k}.depth_reach": reaches(ol["depth_reach"]),
                        f"{k}.beyond_length": pm(ol["beyond_length"]), f"{k}.beyond_depth": pm(ol["beyond_depth"]),
                        f"{k}.beyond_depth_seeds": listed(ol["beyond_depth"]["values"])})
    for pair, by in ld["differences"].items():
        for x, diff in by.items():
            out[f"{KEY}.ld.diff.{pair}.{x}"] = difference(diff)
    for kind, v in ct["kinds"].items():
        for c, g in v["cells"].items():
            k = f"{KEY}.count.{kind}.{c}"
            out.update(base_values(k, g))
            ol = g["over_learned"]
            if ol:
                out.update({f"{k}.hard": reaches(ol["hard_largest_n"]), f"{k}.largest": reaches(ol["largest_n"]),
                            f"{k}.hard_top": pm(ol["hard_top"]), f"{k}.r2_train": pm(ol["probe_r2_train"]),
                            f"{k}.r2_beyond": pm(ol["probe_r2_beyond"]), f"{k}.unit": pm(ol["best_unit_corr"])})
                if ol["probe_c_r2_beyond"] is not None:
                    out.update({f"{k}.c_r2_train": pm(ol["probe_c_r2_train"]),
                                f"{k}.c_r2_beyond": pm(ol["probe_c_r2_beyond"]),
                                f"{k}.c_r2_beyond_seeds": listed(ol["probe_c_r2_beyond"]["values"]),
                                f"{k}.c_unit": pm(ol["best_unit_c_corr"])})
        for a, s in v["shortcuts"].items():
            k = f"{KEY}.count.{kind}.auto.{a}"
            out.update({f"{k}.iid": pm(s["iid"], 3), f"{k}.largest": reaches(s["largest_n"]),
                        f"{k}.hard": reaches(s["hard_largest_n"]), f"{k}.hard_top": pm(s["hard_top"])})
        for pair, diff in ct["differences"][kind].items():
            out[f"{KEY}.count.{kind}.diff.{pair}"] = difference(diff)
    for c, g in pr["cells"].items():
        k = f"{KEY}.predict.{c}"
        out.update(base_values(k, g))
        ol = g["over_learned"]
        if ol:
            out.update({f"{k}.largest": reaches(ol["largest_n"]),
                        f"{k}.past": f"{ol['past']} of {len(ol['largest_n']['values'])}"})
    for pair, diff in pr["differences"].items():
        out[f"{KEY}.predict.diff.{pair}"] = difference(diff)
    b = sm["baselines"]
    out.update({f"{KEY}.sums.chance": fmt_fixed(b["chance"], 2), f"{KEY}.sums.draw": fmt_comma(b["n"]),
                f"{KEY}.sums.draw_seed": str(b["seed"]), f"{KEY}.sums.threshold": str(b["threshold"]),
                f"{KEY}.sums.majority_class": str(b["majority_class"])})
    for side in ("heldin", "ood"):
        out.update({f"{KEY}.sums.{side}.n": fmt_comma(b[side]["n"]),
                    f"{KEY}.sums.{side}.automaton": fmt_fixed(b[side]["automaton"], 3),
                    f"{KEY}.sums.{side}.majority": fmt_fixed(b[side]["majority"], 3)})
    for c, g in sm["cells"].items():
        k = f"{KEY}.sums.{c}"
        out.update(base_values(k, g))
        out.update({f"{k}.width": str(g["width"]), f"{k}.params": fmt_comma(g["n_params"]),
                    f"{k}.budget": budget({**g["schedule"], "cap": g["cap"]}, sm["epochs"])})
        if g["dropped_at"]:
            out[f"{k}.dropped_at"] = ", ".join(fmt_comma(u) if u >= 0 else "never" for u in g["dropped_at"])
        for i, b in enumerate(g["tried"]):
            out.update({f"{k}.tried.{i}.budget": budget(b, sm["epochs"] if "experiment" in b else None),
                        f"{k}.tried.{i}.learned": f"{b['learned']} of {b['seeds']}",
                        f"{k}.tried.{i}.heldin": listed(b["heldin"], 3) if "heldin" in b else "—"})
        if g["other_seeds"]:
            out[f"{k}.apart.ood"] = listed(g["apart_ood"], 3)
        ol = g["over_learned"]
        if not ol:
            continue
        out.update({f"{k}.ood": pm(ol["ood"], 3), f"{k}.ood_seeds": listed(ol["ood"]["values"], 3),
                    f"{k}.learned_seeds": whole(g["learned_seeds"])})
        for L, p in ol["probes"].items():
            for x, s in p.items():
                out[f"{k}.probe.{L}.{x}"] = listed(s["values"])
        for a, p in ol["patch"].items():
            for x, s in p.items():
                out[f"{k}.patch.{a}.{x}"] = listed(s["values"])
        for x in ("swap_follows", "swap_unchanged", "clamp_accuracy", "clamp_changed", "growth_final"):
            out[f"{k}.{x}"] = listed(ol[x]["values"])
        for s, v in ol["sv"].items():
            out[f"{k}.sv.{s}"] = listed(v["values"])
        out[f"{k}.pca"] = f"{listed(ol['pca'][0]['values'])}; {listed(ol['pca'][1]['values'])}"
    for op, a in ar.items():
        if op == "published":
            continue
        k = f"{KEY}.arith.{op}"
        out.update({f"{k}.threshold": fmt_sci(a["threshold"], text=True), f"{k}.updates": fmt_comma(a["updates"]),
                    f"{k}.diff": interval(a["difference"]), f"{k}.ratio": fmt_sci(a["difference"]["ratio"], text=True)})
        for h, g in a["heads"].items():
            out.update({f"{k}.{h}.solved": f"{g['solved']} of {g['runs']}",
                        f"{k}.{h}.extrap": fmt_sci(g["median_extrap"], text=True),
                        f"{k}.{h}.interp": fmt_sci(g["median_interp"], text=True),
                        f"{k}.{h}.extrap_seeds": ", ".join(fmt_sci(x, text=True) for x in g["extrap_mse"])})
    for name, rows in published.items():
        for i, row in enumerate(rows):
            k = f"{KEY}.{name}.published.{i}"
            out.update({f"{k}.lab": row["lab"], f"{k}.result": row["result"], f"{k}.verdict": row["verdict"],
                        f"{k}.why": row["why"] or "—"})
    return out
