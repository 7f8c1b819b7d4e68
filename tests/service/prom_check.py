#!/usr/bin/env python3
"""prom_check.py — a strict checker of the Prometheus text format (0.0.4).

    prom_check.py FILE [--get 'NAME{LABEL="V",...}']...   (FILE "-": stdin)
    prom_check.py --self-test

Checks what the daemon's GET /metrics must hold (doc/api.md), more strictly
than Prometheus's own parser, which lets some of it pass:

- every line ends in a newline; "# HELP NAME TEXT" and "# TYPE NAME TYPE"
  (counter, gauge, histogram, summary, untyped) come once per family, both
  before its first sample; other "#" lines are comments; no blank lines;
- a family's samples are contiguous (no family comes back after another);
- metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names
  [a-zA-Z_][a-zA-Z0-9_]* (not "__..."), each at most once; label values are
  double-quoted with only \\\\, \\" and \\n escaped; HELP text escapes only
  \\\\ and \\n;
- values are floats as Go's ParseFloat takes them (NaN, +Inf, -Inf allowed),
  an optional timestamp an integer; no series twice;
- counters are >= 0; a histogram's samples are NAME_bucket (with "le"),
  NAME_sum and NAME_count; for each label set its buckets are in increasing
  order of le, which parse as floats, with cumulative (non-decreasing)
  integer counts, ending in le="+Inf" equal to NAME_count, and NAME_sum is
  there.

Exit 0 when the text passes, printing a summary (and each --get series'
value, one a line, in order); 1 with every problem found, one a line,
naming the line number; 2 for a usage error. --self-test runs the checker
on texts that must pass and texts that must fail, so the checker itself is
tested.
"""
import math
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
FLOAT = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[Ii]nf(?:inity)?|NaN)$")
TIMESTAMP = re.compile(r"-?[0-9]+$")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


def parse_float(s):
    if not FLOAT.match(s):
        return None
    return float(s)


def parse_labels(s, i, lineno, errors):
    """Labels from s[i] == '{'; returns (dict, index after '}') or (None, _)."""
    labels = {}
    i += 1
    while True:
        if i < len(s) and s[i] == "}":
            return labels, i + 1
        m = LABEL.match(s, i)
        if not m:
            errors.append("line %d: a label name expected at column %d" % (lineno, i + 1))
            return None, i
        name = m.group(0)
        if name.startswith("__"):
            errors.append("line %d: label name %s is reserved" % (lineno, name))
        if name in labels:
            errors.append("line %d: label %s given twice" % (lineno, name))
        i = m.end()
        if s[i:i + 2] != '="':
            errors.append("line %d: label %s: '=\"' expected" % (lineno, name))
            return None, i
        i += 2
        value = []
        while True:
            if i >= len(s):
                errors.append("line %d: label %s: unterminated value" % (lineno, name))
                return None, i
            ch = s[i]
            if ch == "\\":
                nxt = s[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    errors.append("line %d: label %s: bad escape \\%s" % (lineno, name, nxt))
                    return None, i
                value.append("\n" if nxt == "n" else nxt)
                i += 2
            elif ch == '"':
                i += 1
                break
            else:
                value.append(ch)
                i += 1
        labels[name] = "".join(value)
        if i < len(s) and s[i] == ",":
            i += 1
        elif i < len(s) and s[i] == "}":
            continue
        else:
            errors.append("line %d: label %s: ',' or '}' expected" % (lineno, name))
            return None, i


def family_of(name, types):
    """The family a sample name belongs to (histogram and summary suffixes)."""
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix):
            base = name[:-len(suffix)]
            if types.get(base) in ("histogram", "summary") and (
                    suffix != "_bucket" or types.get(base) == "histogram"):
                return base
    return name


def series_key(name, labels):
    return name + "{" + ",".join('%s="%s"' % (k, labels[k]) for k in sorted(labels)) + "}"


def check(text):
    """Returns (errors, samples: {series_key: value}, n_families)."""
    errors = []
    if text and not text.endswith("\n"):
        errors.append("the text does not end in a newline")
    helps, types = {}, {}
    seen_samples = {}
    started, closed = set(), set()  # families with samples; families another followed
    current = None
    hist = {}  # (family, labels without le) -> buckets [(le, count, line, le text)], sum, count
    for lineno, line in enumerate(text.split("\n")[:-1] if text.endswith("\n")
                                  else text.split("\n"), 1):
        if line == "":
            errors.append("line %d: a blank line" % lineno)
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 2 and parts[0] == "#" and parts[1] in ("HELP", "TYPE"):
                if len(parts) < 3 or not NAME.fullmatch(parts[2]):
                    errors.append("line %d: # %s without a valid metric name" % (lineno, parts[1]))
                    continue
                fam = parts[2]
                rest = parts[3] if len(parts) > 3 else ""
                if fam in started:
                    errors.append("line %d: # %s %s after its family's samples" %
                                  (lineno, parts[1], fam))
                elif fam in closed:
                    errors.append("line %d: # %s %s: its family comes back after another" %
                                  (lineno, parts[1], fam))
                if parts[1] == "HELP":
                    if fam in helps:
                        errors.append("line %d: a second HELP for %s" % (lineno, fam))
                    escapes = re.finditer(r"\\(.?)", rest)
                    if any(m.group(1) not in ("\\", "n") for m in escapes):
                        errors.append("line %d: HELP %s: an escape other than \\\\ or \\n" %
                                      (lineno, fam))
                    helps[fam] = rest
                else:
                    if fam in types:
                        errors.append("line %d: a second TYPE for %s" % (lineno, fam))
                    if rest not in TYPES:
                        errors.append("line %d: TYPE %s: '%s' is not one of %s" %
                                      (lineno, fam, rest, ", ".join(TYPES)))
                    types[fam] = rest
                if current is not None and fam != current:
                    closed.add(current)
                current = fam
            continue
        m = NAME.match(line)
        if not m:
            errors.append("line %d: a metric name expected" % lineno)
            continue
        name = m.group(0)
        i = m.end()
        labels = {}
        if i < len(line) and line[i] == "{":
            labels, i = parse_labels(line, i, lineno, errors)
            if labels is None:
                continue
        if i >= len(line) or line[i] != " ":
            errors.append("line %d: one space expected before the value" % lineno)
            continue
        fields = line[i + 1:].split(" ")
        if len(fields) not in (1, 2) or "" in fields:
            errors.append("line %d: a value and at most a timestamp, single spaces, expected" %
                          lineno)
            continue
        value = parse_float(fields[0])
        if value is None:
            errors.append("line %d: value '%s' is not a float" % (lineno, fields[0]))
            continue
        if len(fields) == 2 and not TIMESTAMP.match(fields[1]):
            errors.append("line %d: timestamp '%s' is not an integer" % (lineno, fields[1]))
        fam = family_of(name, types)
        if fam not in types or fam not in helps:
            errors.append("line %d: sample %s before its family's %s" %
                          (lineno, name, "TYPE" if fam not in types else "HELP"))
        if fam in closed:
            errors.append("line %d: family %s comes back after another family" % (lineno, fam))
        if current is not None and fam != current:
            closed.add(current)
        current = fam
        started.add(fam)
        key = series_key(name, labels)
        if key in seen_samples:
            errors.append("line %d: series %s given twice" % (lineno, key))
        seen_samples[key] = value
        kind = types.get(fam)
        if kind == "counter" and not value >= 0:
            errors.append("line %d: counter %s is %s" % (lineno, name, fields[0]))
        if kind == "histogram":
            if name == fam:
                errors.append("line %d: histogram %s: a sample without _bucket, _sum or _count"
                              % (lineno, name))
                continue
            rest = {k: v for k, v in labels.items() if k != "le"}
            h = hist.setdefault((fam, series_key("", rest)), {"buckets": [], "sum": None,
                                                               "count": None, "line": lineno})
            if name == fam + "_bucket":
                if "le" not in labels:
                    errors.append("line %d: %s without le" % (lineno, name))
                    continue
                le = parse_float(labels["le"])
                if le is None:
                    errors.append("line %d: le=\"%s\" is not a float" % (lineno, labels["le"]))
                    continue
                h["buckets"].append((le, value, lineno, labels["le"]))
            elif name == fam + "_sum":
                h["sum"] = value
            else:
                h["count"] = (value, lineno)
            if "le" in labels and name != fam + "_bucket":
                errors.append("line %d: %s with an le label" % (lineno, name))
    for (fam, rest), h in sorted(hist.items()):
        where = "histogram %s%s" % (fam, rest if rest != "{}" else "")
        b = h["buckets"]
        if not b:
            errors.append("%s: no buckets" % where)
            continue
        for (le0, c0, _, _), (le1, c1, ln, _) in zip(b, b[1:]):
            if not le1 > le0:
                errors.append("line %d: %s: le %s not above the bucket before" % (ln, where, le1))
            if c1 < c0:
                errors.append("line %d: %s: bucket count %g below the one before (%g): not "
                              "cumulative" % (ln, where, c1, c0))
        for le, c, ln, _ in b:
            if c < 0 or c != math.floor(c):
                errors.append("line %d: %s: bucket count %g is not a count" % (ln, where, c))
        if not (math.isinf(b[-1][0]) and b[-1][0] > 0) or b[-1][3] != "+Inf":
            errors.append("%s: the last bucket is le=\"%s\", not le=\"+Inf\"" % (where, b[-1][3]))
        if h["count"] is None:
            errors.append("%s: no %s_count" % (where, fam))
        elif b[-1][1] != h["count"][0]:
            errors.append("line %d: %s: _count %g is not the +Inf bucket's %g" %
                          (h["count"][1], where, h["count"][0], b[-1][1]))
        if h["sum"] is None:
            errors.append("%s: no %s_sum" % (where, fam))
    for fam in types:
        if fam not in helps:
            errors.append("family %s has a TYPE and no HELP" % fam)
    return errors, seen_samples, len(types)


def normalize(series):
    """'name{b="2",a="1"}' -> its series_key; None when it does not parse."""
    m = NAME.match(series)
    if not m:
        return None
    labels = {}
    if m.end() < len(series):
        errs = []
        labels, end = parse_labels(series, m.end(), 0, errs)
        if labels is None or errs or end != len(series):
            return None
    return series_key(m.group(0), labels)


GOOD = [
    "# HELP a_total Things.\n# TYPE a_total counter\na_total 3\n",
    "# HELP g A gauge, escaped \\\\ and \\n.\n# TYPE g gauge\ng{x=\"a\\\"b\\\\c\\n\"} -1.5e3\n"
    "g{x=\"y\"} NaN 1700000000000\n",
    "# HELP h Seconds.\n# TYPE h histogram\n"
    "h_bucket{s=\"a\",le=\"0.001\"} 0\nh_bucket{s=\"a\",le=\"1e-02\"} 2\n"
    "h_bucket{s=\"a\",le=\"+Inf\"} 3\nh_sum{s=\"a\"} 0.5\nh_count{s=\"a\"} 3\n"
    "h_bucket{s=\"b\",le=\"1\"} 0\nh_bucket{s=\"b\",le=\"+Inf\"} 0\nh_sum{s=\"b\"} 0\n"
    "h_count{s=\"b\"} 0\n",
    "# HELP e Empty family.\n# TYPE e gauge\n# a comment\n# HELP f F.\n# TYPE f untyped\nf +Inf\n",
]
# (what, a pattern one of the errors must match, the text)
BAD = [
    ("no newline at the end", "newline", "# HELP a A.\n# TYPE a gauge\na 1"),
    ("a sample before TYPE", "before its family's TYPE", "# HELP a A.\na 1\n# TYPE a gauge\n"),
    ("a sample without HELP", "before its family's HELP", "# TYPE a gauge\na 1\n"),
    ("TYPE twice", "a second TYPE", "# HELP a A.\n# TYPE a gauge\n# TYPE a gauge\na 1\n"),
    ("HELP after the samples", "after its family's samples",
     "# TYPE a gauge\na 1\n# HELP a A.\n"),
    ("an unknown type", "is not one of", "# HELP a A.\n# TYPE a number\na 1\n"),
    ("a bad escape in HELP", "an escape other", "# HELP a A \\t.\n# TYPE a gauge\na 1\n"),
    ("a bad metric name", "a metric name expected", "# HELP a A.\n# TYPE a gauge\n1a 1\n"),
    ("an unterminated label value", "unterminated",
     "# HELP a A.\n# TYPE a gauge\na{b=\"c} 1\n"),
    ("a bad label name", "a label name expected", "# HELP a A.\n# TYPE a gauge\na{1b=\"c\"} 1\n"),
    ("a bad escape in a label", "bad escape", "# HELP a A.\n# TYPE a gauge\na{b=\"\\t\"} 1\n"),
    ("a label twice", "given twice", "# HELP a A.\n# TYPE a gauge\na{b=\"1\",b=\"2\"} 1\n"),
    ("a value that is no float", "not a float", "# HELP a A.\n# TYPE a gauge\na 1,5\n"),
    ("two spaces", "single spaces", "# HELP a A.\n# TYPE a gauge\na  1\n"),
    ("a bad timestamp", "not an integer", "# HELP a A.\n# TYPE a gauge\na 1 1.5\n"),
    ("a series twice", "series a{b=\"1\"} given twice",
     "# HELP a A.\n# TYPE a gauge\na{b=\"1\"} 1\na{b=\"1\"} 2\n"),
    ("a negative counter", "counter a is -1", "# HELP a A.\n# TYPE a counter\na -1\n"),
    ("a family split", "comes back", "# HELP a A.\n# TYPE a gauge\n# HELP b B.\n# TYPE b gauge\n"
     "a{x=\"1\"} 1\nb 1\na{x=\"2\"} 1\n"),
    ("a blank line", "blank line", "# HELP a A.\n# TYPE a gauge\n\na 1\n"),
    ("buckets not cumulative", "not cumulative",
     "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\n"
     "h_bucket{le=\"2\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 2\n"),
    ("no +Inf bucket", "not le=\"\\+Inf\"",
     "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_sum 1\nh_count 2\n"),
    ("+Inf not the count", "_count 2 is not the \\+Inf bucket's 3",
     "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\n"
     "h_bucket{le=\"+Inf\"} 3\nh_sum 1\nh_count 2\n"),
    ("le out of order", "not above the bucket before",
     "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"2\"} 1\n"
     "h_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n"),
    ("le not a float", "le=\"x\" is not a float",
     "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"x\"} 1\n"
     "h_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n"),
    ("a bucket without le", "without le",
     "# HELP h H.\n# TYPE h histogram\nh_bucket 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\n"
     "h_count 1\n"),
    ("no _sum", "no h_sum",
     "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n"),
    ("no _count", "no h_count",
     "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\n"),
    ("a fractional bucket count", "is not a count",
     "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1.5\nh_sum 1\nh_count 1.5\n"),
    ("a bare histogram sample", "without _bucket", "# HELP h H.\n# TYPE h histogram\nh 1\n"),
]


def self_test():
    failed = 0
    for i, text in enumerate(GOOD):
        errors, _, _ = check(text)
        if errors:
            print("FAIL good text %d refused: %s" % (i, "; ".join(errors)))
            failed = 1
    for what, pattern, text in BAD:
        errors, _, _ = check(text)
        if not any(re.search(pattern, e) for e in errors):
            print("FAIL %s: no error matches '%s' (errors: %s)" %
                  (what, pattern, "; ".join(errors) or "none"))
            failed = 1
    if not failed:
        print("prom_check: self-test: %d good texts pass, %d bad ones are refused" %
              (len(GOOD), len(BAD)))
    return failed


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    path, gets = None, []
    i = 0
    while i < len(argv):
        if argv[i] == "--get" and i + 1 < len(argv):
            key = normalize(argv[i + 1])
            if key is None:
                print("prom_check: --get %s: not NAME or NAME{LABEL=\"V\",...}" % argv[i + 1],
                      file=sys.stderr)
                return 2
            gets.append((argv[i + 1], key))
            i += 2
        elif path is None and (argv[i] == "-" or not argv[i].startswith("-")):
            path = argv[i]
            i += 1
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    if path is None:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print("prom_check: %s: not UTF-8: %s" % (path, e))
        return 1
    errors, samples, n_fam = check(text)
    for g, key in gets:
        if key not in samples:
            errors.append("no series %s" % g)
    if errors:
        for e in errors:
            print("prom_check: %s: %s" % (path, e))
        return 1
    print("prom_check: %s: %d families, %d samples: well-formed" % (path, n_fam, len(samples)))
    for _, key in gets:
        print("%.17g" % samples[key])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
