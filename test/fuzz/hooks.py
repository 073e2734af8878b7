"""Schemathesis hooks of the fuzz test (test/fuzz/openapi.test.ts).

JSON Schema cannot say every rule the server enforces; the OpenAPI document publishes the others
as `x-newsflow-rules` (spec/rules.ts): on an operation for its query parameters, on a body schema
for its fields. A generated *positive* case is schema-valid but may break one of them (an end
before its start, two months apart, a lone geo_lat); this hook makes it keep them, so the
positive-data-acceptance check asks the server only what the document promises it takes.
Negative cases are left as they are: the server refuses them anyway.

Loaded with `hooks = "<this file>"` in the generated schemathesis.toml.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import schemathesis

RULES = "x-newsflow-rules"
UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# the last instant a date-time can name (spec/common.ts DATETIME_RANGE)
MAX_INSTANT = datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
# shortest and longest bucket per sampling, in seconds (a month is 28 to 31 days): the count of
# buckets in a span is bounded with the shortest, the room left before 9999-12-31 with the longest
BUCKET_SECONDS = {
    "5m": (300, 300),
    "1h": (3600, 3600),
    "12h": (43200, 43200),
    "1d": (86400, 86400),
    "1w": (604800, 604800),
    "1m": (28 * 86400, 31 * 86400),
}

# closed polygons (first point = last) the closed-rings rule puts in place of generated text
POLYGONS = [
    {"exterior": [{"lon": 2.2, "lat": 48.8}, {"lon": 2.5, "lat": 48.8}, {"lon": 2.5, "lat": 48.9}, {"lon": 2.2, "lat": 48.8}]},
    {"exterior": [{"lon": -180, "lat": -90}, {"lon": 180, "lat": -90}, {"lon": 180, "lat": 90}, {"lon": -180, "lat": 90}, {"lon": -180, "lat": -90}]},
    {
        "exterior": [{"lon": 0, "lat": 0}, {"lon": 10, "lat": 0}, {"lon": 10, "lat": 10}, {"lon": 0, "lat": 10}, {"lon": 0, "lat": 0}],
        "interiors": [[{"lon": 2, "lat": 2}, {"lon": 3, "lat": 2}, {"lon": 3, "lat": 3}, {"lon": 2, "lat": 2}]],
    },
]

DATE_TIME = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?([Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)?$")


def parse_instant(value: Any) -> datetime | None:
    """A date-time string (RFC 3339, or the lenient forms the server reads) or Unix seconds as a UTC datetime."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return EPOCH + timedelta(seconds=value)
        except OverflowError:
            return None
    if not isinstance(value, str):
        return None
    if re.fullmatch(r"[0-9]+", value):
        return parse_instant(int(value))
    m = DATE_TIME.match(value)
    if not m:
        return None
    y, mo, d, h, mi, s, frac, off = m.groups()
    try:
        t = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0), int((frac or "0")[:6].ljust(6, "0")), tzinfo=UTC)
    except ValueError:
        return None
    if off and off not in ("Z", "z"):
        sign = 1 if off[0] == "+" else -1
        digits = off[1:].replace(":", "")
        delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        try:
            t = t - sign * delta
        except OverflowError:
            return None
    return t


def like(original: Any, t: datetime) -> Any:
    """`t` written the way `original` was: Unix seconds stay numbers, date-times RFC 3339 in UTC."""
    if isinstance(original, int) or (isinstance(original, str) and re.fullmatch(r"[0-9]+", original)):
        seconds = int((t - EPOCH).total_seconds())
        return seconds if isinstance(original, int) else str(seconds)
    return t.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def given(container: dict, name: str) -> bool:
    return container.get(name) is not None


def not_before(container: dict, rule: dict) -> None:
    a, b = rule["fields"]
    if given(container, a) and given(container, b):
        ta, tb = parse_instant(container[a]), parse_instant(container[b])
        if ta and tb and tb < ta:
            container[a], container[b] = container[b], container[a]


def same_utc_month(container: dict, rule: dict) -> None:
    a, b = rule["fields"]
    if not (given(container, a) and given(container, b)):
        return
    ta, tb = parse_instant(container[a]), parse_instant(container[b])
    if not ta or not tb or (ta.year, ta.month) == (tb.year, tb.month):
        return
    last = MAX_INSTANT if (ta.year, ta.month) == (9999, 12) else datetime(ta.year + ta.month // 12, ta.month % 12 + 1, 1, tzinfo=UTC) - timedelta(seconds=1)
    container[b] = like(container[b], min(max(tb, ta), last))


def all_or_none(container: dict, rule: dict) -> None:
    present = [f for f in rule["fields"] if given(container, f)]
    if 0 < len(present) < len(rule["fields"]):
        for f in present:
            del container[f]


def valid_polygon(text: Any) -> bool:
    def ring(r: Any) -> bool:
        points = isinstance(r, list) and len(r) >= 4 and all(
            isinstance(p, dict)
            and all(type(p.get(k)) in (int, float) for k in ("lon", "lat"))
            and -180 <= p["lon"] <= 180
            and -90 <= p["lat"] <= 90
            for p in r
        )
        return points and r[0]["lon"] == r[-1]["lon"] and r[0]["lat"] == r[-1]["lat"]

    try:
        p = json.loads(text)
    except (TypeError, ValueError):
        return False
    return isinstance(p, dict) and ring(p.get("exterior")) and (p.get("interiors") is None or (isinstance(p["interiors"], list) and all(map(ring, p["interiors"]))))


def closed_rings(container: dict, rule: dict) -> None:
    (f,) = rule["fields"]
    if given(container, f) and not valid_polygon(container[f]):
        pick = int(hashlib.sha1(str(container[f]).encode("utf-8", "surrogatepass")).hexdigest(), 16) % len(POLYGONS)
        container[f] = json.dumps(POLYGONS[pick])


def max_buckets(container: dict, rule: dict) -> None:
    start, end, sampling = rule["fields"]
    shortest, longest = (timedelta(seconds=s) for s in BUCKET_SECONDS.get(str(container.get(sampling) or "1d"), (86400, 86400)))
    # the last bucket must end by MAX_INSTANT: keep the end two buckets and a month clear of it
    ceiling = MAX_INSTANT - 2 * longest - timedelta(days=31)
    t_end = parse_instant(container[end]) if given(container, end) else None
    if t_end and t_end > ceiling:
        t_end = ceiling
        container[end] = like(container[end], t_end)
    t_start = parse_instant(container[start]) if given(container, start) else None
    if t_start and t_start > ceiling:
        t_start = ceiling
        container[start] = like(container[start], t_start)
    upto = t_end or max(datetime.now(UTC), t_start or datetime.now(UTC))
    if t_start and (upto - t_start) > (rule["max"] - 3) * shortest:
        container[start] = like(container[start], upto - (rule["max"] - 3) * shortest)


def max_total_length(container: dict, rule: dict) -> None:
    (f,) = rule["fields"]
    items = container.get(f)
    if not isinstance(items, list):
        return
    texts = [i for i in items if isinstance(i, dict) and isinstance(i.get(rule["property"]), str)]
    total = sum(len(i[rule["property"]]) for i in texts)
    if total > rule["max"]:
        share = rule["max"] // max(len(texts), 1)
        for i in texts:
            i[rule["property"]] = i[rule["property"]][:share]


def refused_host(host: str, rule: dict) -> bool:
    """Whether the rule refuses `host`: a name of `names` (`*.` its subdomains) or an address literal in a network of `hosts`."""
    name = host.lower().rstrip(".")
    for n in rule.get("names", []):
        if name == n or (n.startswith("*.") and name.endswith(n[1:])):
            return True
    try:
        address = ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return any(address in network for network in map(ipaddress.ip_network, rule.get("hosts", [])) if network.version == address.version)


def refused_hosts(container: dict, rule: dict) -> None:
    (f,) = rule["fields"]
    url = container.get(f)
    if not isinstance(url, str):
        return
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return
    if refused_host(host, rule):
        netloc = parts.netloc.rsplit("@", 1)
        host = "hooks.example.com" + (f":{parts.port}" if parts.port is not None else "")
        container[f] = urlunsplit((parts.scheme, "@".join([*netloc[:-1], host]), parts.path, parts.query, parts.fragment))


MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


def cron_value(field: int, v: str) -> int:
    names = MONTHS if field == 3 else DAYS if field == 4 else []
    low = v.lower()
    if low in names:
        return names.index(low) + (1 if field == 3 else 0)
    return int(v)


def ascending_ranges(container: dict, rule: dict) -> None:
    (f,) = rule["fields"]
    cron = container.get(f)
    if not isinstance(cron, str) or "@" in cron:
        return
    tokens = re.split(r"([ \t]+)", cron)
    fields = [i for i, t in enumerate(tokens) if t and not re.fullmatch(r"[ \t]+", t)]
    if len(fields) != 5:
        return
    for n, i in enumerate(fields):
        items = []
        for item in tokens[i].split(","):
            body, _, step = item.partition("/")
            a, dash, b = body.partition("-")
            if dash and a != "*" and cron_value(n, a) > cron_value(n, b):
                body = f"{b}-{a}"
            items.append(body + ("/" + step if step else ""))
        tokens[i] = ",".join(items)
    container[f] = "".join(tokens)


# applied in this order: dates are ordered before a month or a bucket cap moves one of them
APPLY = {
    "ascending-ranges": ascending_ranges,
    "all-or-none": all_or_none,
    "closed-rings": closed_rings,
    "refused-hosts": refused_hosts,
    "max-total-length": max_total_length,
    "not-before": not_before,
    "same-utc-month": same_utc_month,
    "max-buckets": max_buckets,
}


def apply_rules(container: Any, rules: list[dict]) -> None:
    """Every rule on every object of `container` (a body: its nested objects too) that holds one of the rule's fields."""
    if isinstance(container, list):
        for x in container:
            apply_rules(x, rules)
        return
    if not isinstance(container, dict):
        return
    for kind, fn in APPLY.items():
        for rule in rules:
            if rule.get("rule") == kind and any(f in container for f in rule["fields"]):
                fn(container, rule)
    for v in list(container.values()):
        apply_rules(v, rules)


def schema_rules(schema: Any, document: dict, seen: set[str] | None = None) -> list[dict]:
    """The x-newsflow-rules anywhere in a schema, `$ref`s followed (each once)."""
    seen = set() if seen is None else seen
    found: list[dict] = []
    stack = [schema]
    while stack:
        s = stack.pop()
        if isinstance(s, list):
            stack.extend(s)
            continue
        if not isinstance(s, dict):
            continue
        ref = s.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
            seen.add(ref)
            target: Any = document
            for part in ref[2:].split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            stack.append(target)
        found.extend(r for r in s.get(RULES, []) if isinstance(r, dict))
        stack.extend(v for k, v in s.items() if k != RULES)
    return found


_BODY_RULES: dict[str, list[dict]] = {}


def body_rules(operation: Any) -> list[dict]:
    key = f"{operation.method} {operation.path}"
    if key not in _BODY_RULES:
        body = (operation.definition.raw.get("requestBody") or {}).get("content", {})
        _BODY_RULES[key] = schema_rules([c.get("schema") for c in body.values()], operation.schema.raw_schema)
    return _BODY_RULES[key]


def wire_text(value: Any) -> str | None:
    """The text a scalar query value is sent as (booleans as Schemathesis writes them), or None for other values."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int)):
        return str(value)
    return None


def string_takes(schema: Any, text: str) -> bool:
    """Whether a string schema (no type counts as any) takes `text`."""
    if not isinstance(schema, dict) or schema.get("type", "string") != "string":
        return False
    if "enum" in schema and text not in schema["enum"]:
        return False
    if "const" in schema and schema["const"] != text:
        return False
    if "pattern" in schema and not re.search(schema["pattern"], text):
        return False
    return schema.get("minLength", 0) <= len(text) <= schema.get("maxLength", len(text))


def query_takes_text(schema: Any, text: str) -> bool:
    """Whether a query parameter's schema takes `text` sent once: as a string, or as an array of one string."""
    if not isinstance(schema, dict):
        return False
    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches:
        return any(query_takes_text(b, text) for b in branches)
    if schema.get("type") == "array":
        return string_takes(schema.get("items", {}), text)
    return string_takes(schema, text)


@schemathesis.hook
def filter_case(ctx: Any, case: Any) -> bool:
    """
    Drop a negative case whose only violations are query values that the wire makes valid again:
    `string_guarantee=false` (a boolean where the schema says an array of strings, or null) is the
    one-item array ["false"] once sent, which the server rightly takes. A query string has no types;
    Schemathesis 4.32.5 re-reads numbers only.
    """
    meta = case.meta
    data = getattr(getattr(meta, "phase", None), "data", None)
    mutations = getattr(data, "mutations", ())
    if meta is None or meta.generation.mode.is_positive or not mutations or not isinstance(case.query, dict):
        return True
    params = {p.get("name"): p.get("schema") for p in case.operation.definition.raw.get("parameters", []) if p.get("in") == "query"}
    for m in mutations:
        if m.parameter_location.value != "query" or m.parameter not in params:
            return True
        text = wire_text(case.query.get(m.parameter))
        if text is None or not query_takes_text(params[m.parameter], text):
            return True
    return False


@schemathesis.hook
def map_case(ctx: Any, case: Any) -> Any:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return case
    query_rules = [r for r in case.operation.definition.raw.get(RULES, []) if isinstance(r, dict)]
    if query_rules and isinstance(case.query, dict):
        apply_rules_flat(case.query, query_rules)
    rules = body_rules(case.operation)
    if rules and isinstance(case.body, (dict, list)):
        apply_rules(case.body, rules)
    return case


def apply_rules_flat(container: dict, rules: list[dict]) -> None:
    """The rules of an operation's query parameters: on the query itself, not on values inside it."""
    for kind, fn in APPLY.items():
        for rule in rules:
            if rule.get("rule") == kind:
                fn(container, rule)

