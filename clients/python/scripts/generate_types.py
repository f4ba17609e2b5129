#!/usr/bin/env python3
"""Writes src/memoryd/types.py: TypedDicts for every request and response of memoryd's key-holder
routes, generated from the server's own OpenAPI document (GET /openapi.json), so the Python types
cannot drift from the schemas the server validates with.

    python3 scripts/generate_types.py                      # starts ../../dist/memoryd, reads its document
    python3 scripts/generate_types.py --url http://127.0.0.1:8787
    python3 scripts/generate_types.py --openapi openapi.json
    python3 scripts/generate_types.py --check ...          # exit 1 when types.py differs

Only the standard library: it runs with any Python 3.10+.

The rules, so the output is predictable:
- Each named schema (components.schemas) a key-holder operation uses becomes a TypedDict of that
  name; the query parameters of an operation become one too (named in QUERY_TYPES below).
- A nested object becomes a TypedDict named after its property (``end_user`` -> ``EndUser``, the
  items of ``messages`` -> ``Message``) when every object of that name has the same shape, else
  prefixed with its parent's name (``AnswerError``, ``ErrorEnvelopeError``).
- ``anyOf`` of constants is a ``Literal``; ``anyOf`` with ``null`` is ``X | None``; an object
  without properties is ``dict[str, Any]``.
- A field the schema does not require is optional (in a ``total=False`` class the TypedDict
  inherits, so nothing beyond ``typing`` is needed on 3.10); in a request (body or query) a field
  with a ``default`` is too, since the server fills it in.
"""

from __future__ import annotations

import argparse
import json
import keyword
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PACKAGE_ROOT = HERE.parent
REPO_ROOT = PACKAGE_ROOT.parent.parent
TYPES_FILE = PACKAGE_ROOT / "src" / "memoryd" / "types.py"

#: The name of each key-holder operation's query parameters, as a TypedDict. An operation with
#: query parameters that is not named here stops the generator, so a new route gets a name.
QUERY_TYPES = {
    "GET /v1/memory/facts": "FactListQuery",
    "GET /v1/memory/facts/{fact_id}": "FactQuery",
    "DELETE /v1/memory/facts/{fact_id}": "FactQuery",
    "GET /v1/answers/{answer_id}": "AnswerQuery",
}

Schema = dict[str, Any]
REF = "#/components/schemas/"


def pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name) if part)


def singular(name: str) -> str:
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def shape(schema: Any) -> Any:
    """What of a schema decides its Python type (descriptions and constraints left out)."""
    if isinstance(schema, dict):
        keep = ("type", "properties", "required", "items", "anyOf", "oneOf", "allOf", "const", "enum", "$ref", "default", "patternProperties")
        return {
            k: {name: shape(sub) for name, sub in v.items()} if k in ("properties", "patternProperties") else shape(v)
            for k, v in sorted(schema.items())
            if k in keep
        }
    if isinstance(schema, list):
        return [shape(item) for item in schema]
    return schema


def signature_of(schema: Schema, is_input: bool) -> str:
    return json.dumps([shape(schema), is_input], sort_keys=True)


@dataclass
class Generator:
    document: Schema
    components: Schema = field(default_factory=dict)
    #: Named classes in the order they are emitted (dependencies first), and their source.
    emitted: dict[str, str] = field(default_factory=dict)
    #: Named component -> used as input (True) or output (False).
    roles: dict[str, bool] = field(default_factory=dict)
    #: Nested object name -> the shapes met under it; emitted name -> its shape.
    shapes: dict[str, set[str]] = field(default_factory=dict)
    signatures: dict[str, str] = field(default_factory=dict)
    operations: list[tuple[str, str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.components = self.document.get("components", {}).get("schemas", {})

    # -- discovery ----------------------------------------------------------------------------

    def key_holder_operations(self) -> list[tuple[str, str, Schema]]:
        found = []
        for path, methods in self.document["paths"].items():
            if not path.startswith("/v1/") or path.startswith("/v1/admin/"):
                continue
            for method, operation in methods.items():
                security = operation.get("security") or []
                if any("bearerKey" in requirement for requirement in security):
                    found.append((method.upper(), path, operation))
        return found

    def request_schema(self, operation: Schema) -> Schema | None:
        content = (operation.get("requestBody") or {}).get("content", {})
        schema = content.get("application/json", {}).get("schema")
        return schema if isinstance(schema, dict) and "$ref" in schema else None

    def response_schema(self, operation: Schema) -> Schema | None:
        for status, response in operation.get("responses", {}).items():
            if not status.startswith("2"):
                continue
            schema = response.get("content", {}).get("application/json", {}).get("schema", {})
            data = schema.get("properties", {}).get("data")
            if isinstance(data, dict) and "$ref" in data:
                return data
        return None

    def query_schema(self, key: str, operation: Schema) -> Schema | None:
        params = [p for p in operation.get("parameters", []) if p.get("in") == "query"]
        if not params:
            return None
        if key not in QUERY_TYPES:
            raise SystemExit(f"{key} has query parameters: name their TypedDict in QUERY_TYPES")
        return {
            "type": "object",
            "required": [p["name"] for p in params if p.get("required")],
            "properties": {p["name"]: {**p["schema"], **({"description": p["description"]} if "description" in p else {})} for p in params},
        }

    # -- naming nested objects ----------------------------------------------------------------

    def collect(self, schema: Any, is_input: bool, prop: str | None = None, item: bool = False) -> None:
        """Records the shape of every nested object under `schema` by the name it would take."""
        if not isinstance(schema, dict) or "$ref" in schema:
            return
        if schema.get("type") == "object" and "properties" in schema:
            if prop is not None:
                candidate = pascal(singular(prop) if item else prop)
                self.shapes.setdefault(candidate, set()).add(signature_of(schema, is_input))
            for name, sub in schema["properties"].items():
                self.collect(sub, is_input, name)
        elif schema.get("type") == "array":
            self.collect(schema.get("items"), is_input, prop, item=True)
        for combinator in ("anyOf", "oneOf"):
            for sub in schema.get(combinator, []):
                self.collect(sub, is_input, prop, item)

    def nested_name(self, parent: str, prop: str, item: bool, schema: Schema, is_input: bool) -> str:
        candidate = pascal(singular(prop) if item else prop)
        signature = signature_of(schema, is_input)
        name = candidate if len(self.shapes.get(candidate, ())) == 1 and candidate not in self.components else parent + candidate
        while self.signatures.setdefault(name, signature) != signature:
            name += "_"
        return name

    # -- emitting -----------------------------------------------------------------------------

    def python_type(self, schema: Any, parent: str, is_input: bool, prop: str | None = None, item: bool = False) -> str:
        if not isinstance(schema, dict) or not schema:
            return "Any"
        if "$ref" in schema:
            name = str(schema["$ref"]).removeprefix(REF)
            self.emit_named(name, is_input)
            return name
        if "const" in schema:
            return f"Literal[{json.dumps(schema['const'])}]"
        if "enum" in schema:
            return f"Literal[{', '.join(json.dumps(v) for v in schema['enum'])}]"
        for combinator in ("anyOf", "oneOf"):
            if combinator in schema:
                options = schema[combinator]
                consts = [o["const"] for o in options if isinstance(o, dict) and "const" in o]
                rest = [o for o in options if not (isinstance(o, dict) and "const" in o)]
                parts = [f"Literal[{', '.join(json.dumps(c) for c in consts)}]"] if consts else []
                parts += [self.python_type(o, parent, is_input, prop, item) for o in rest]
                return " | ".join(dict.fromkeys(parts))
        kind = schema.get("type")
        if isinstance(kind, list):
            return " | ".join(self.python_type({**schema, "type": k}, parent, is_input, prop, item) for k in kind)
        if kind == "string":
            return "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "boolean":
            return "bool"
        if kind == "null":
            return "None"
        if kind == "array":
            return f"list[{self.python_type(schema.get('items', {}), parent, is_input, prop, item=True)}]"
        if kind == "object":
            if "properties" not in schema:
                return "dict[str, Any]"
            if prop is None:
                raise SystemExit(f"an unnamed inline object under {parent}")
            name = self.nested_name(parent, prop, item, schema, is_input)
            self.emit_class(name, schema, is_input)
            return name
        return "Any"

    def emit_named(self, name: str, is_input: bool) -> None:
        if name in self.roles and self.roles[name] != is_input:
            raise SystemExit(f"{name} is both a request and a response schema: defaults would make it ambiguous")
        self.roles[name] = is_input
        if name not in self.components:
            raise SystemExit(f"unknown schema {name}")
        self.emit_class(name, self.components[name], is_input)

    def emit_class(self, name: str, schema: Schema, is_input: bool) -> None:
        if name in self.emitted:
            return
        self.emitted[name] = ""  # reserved: cycles and repeats stop here
        required = set(schema.get("required", []))
        fields: list[tuple[str, str, bool, str]] = []
        for prop, sub in schema.get("properties", {}).items():
            annotation = self.python_type(sub, name, is_input, prop)
            optional = prop not in required or (is_input and isinstance(sub, dict) and "default" in sub)
            description = sub.get("description", "") if isinstance(sub, dict) else ""
            fields.append((prop, annotation, optional, description))
        self.emitted[name] = render_class(name, schema.get("description", ""), fields)

    def generate(self) -> str:
        operations = self.key_holder_operations()
        roots: list[tuple[str, Schema, bool]] = []
        queries: dict[str, Schema] = {}
        for method, path, operation in operations:
            key = f"{method} {path}"
            body = self.request_schema(operation)
            data = self.response_schema(operation)
            query = self.query_schema(key, operation)
            if body is not None:
                roots.append((body["$ref"].removeprefix(REF), self.components[body["$ref"].removeprefix(REF)], True))
            if data is not None:
                roots.append((data["$ref"].removeprefix(REF), self.components[data["$ref"].removeprefix(REF)], False))
            if query is not None:
                query_name = QUERY_TYPES[key]
                if query_name in queries and shape(queries[query_name]) != shape(query):
                    raise SystemExit(f"{query_name} names two different sets of query parameters")
                queries[query_name] = query
            takes = ([f"body {body['$ref'].removeprefix(REF)}"] if body else []) + ([f"query {QUERY_TYPES[key]}"] if query is not None else [])
            self.operations.append((key, " ".join(takes) or "-", str(data["$ref"]).removeprefix(REF) if data else "-"))
        for name, schema in queries.items():
            roots.append((name, schema, True))
        roots.append(("ErrorEnvelope", self.components["ErrorEnvelope"], False))
        # Each named schema once, in its role.
        unique: dict[str, tuple[str, Schema, bool]] = {}
        for root in roots:
            unique.setdefault(root[0], root)
        for _, schema, is_input in unique.values():
            self.collect(schema, is_input)
        for method, path, operation in operations:
            key = f"{method} {path}"
            body = self.request_schema(operation)
            data = self.response_schema(operation)
            if body is not None:
                self.emit_named(body["$ref"].removeprefix(REF), True)
            if data is not None:
                self.emit_named(data["$ref"].removeprefix(REF), False)
            if key in QUERY_TYPES and QUERY_TYPES[key] in queries:
                self.emit_class(QUERY_TYPES[key], queries[QUERY_TYPES[key]], True)
        self.emit_named("ErrorEnvelope", False)
        return self.render()

    def render(self) -> str:
        width = max(len(key) for key, _, _ in self.operations)
        table = "\n".join(f"#   {key:<{width}}  {request} -> {response}" for key, request, response in self.operations)
        names = sorted(self.emitted)
        return (
            '"""The wire types of memoryd\'s REST API for key holders: every request body, query and\n'
            "response ``data``, as TypedDicts.\n\n"
            "GENERATED by scripts/generate_types.py from the server's OpenAPI document (GET /openapi.json).\n"
            "Do not edit: run the script again (a test fails when this file differs from its output).\n"
            '"""\n\n'
            "# The operations, with what they take and what their data is:\n"
            f"{table}\n\n"
            "from __future__ import annotations\n\n"
            "from typing import Any, Literal, TypedDict\n\n"
            "__all__ = [\n" + "".join(f'    "{name}",\n' for name in names) + "]\n\n\n" + "\n\n".join(self.emitted[name] for name in self.emitted) + "\n"
        )


Field = tuple[str, str, bool, str]


def render_class(name: str, description: str, fields: list[Field]) -> str:
    """A TypedDict. Optional fields go in a ``total=False`` class that inherits the required ones
    (rather than ``NotRequired``, which is typing's only from 3.11): correct at run time too
    (``__required_keys__``, ``get_type_hints``) on every version, with nothing imported."""
    required = [f for f in fields if not f[2]]
    optional = [f for f in fields if f[2]]
    if all(prop.isidentifier() and not keyword.iskeyword(prop) for prop, _, _, _ in fields):
        if required and optional:
            return class_syntax(f"_{name}Required", "TypedDict", "", required) + "\n\n" + class_syntax(name, f"_{name}Required, total=False", description, optional)
        return class_syntax(name, "TypedDict" if required or not optional else "TypedDict, total=False", description, required or optional)
    # Keys that are not identifiers ("from") need the functional form.
    if required and optional:
        return (
            functional(f"_{name}Required", "", required, total=True)
            + "\n\n"
            + functional(f"_{name}Optional", "", optional, total=False)
            + "\n\n"
            + class_syntax(name, f"_{name}Required, _{name}Optional", description, [])
        )
    return functional(name, description, required or optional, total=not optional)


def class_syntax(name: str, bases: str, description: str, fields: list[Field]) -> str:
    body = f'    """{description}"""\n' if description else ""
    if body and fields:
        body += "\n"
    for prop, annotation, _, field_doc in fields:
        if field_doc:
            body += f"    #: {field_doc}\n"
        body += f"    {prop}: {annotation}\n"
    return f"class {name}({bases}):\n{body or '    pass' + chr(10)}"


def functional(name: str, description: str, fields: list[Field], total: bool) -> str:
    # Its values are evaluated at run time, so they are strings, as postponed annotations are.
    entries = ""
    for prop, annotation, _, field_doc in fields:
        if field_doc:
            entries += f"        #: {field_doc}\n"
        entries += f'        "{prop}": "{annotation}",\n'
    comment = f"# {description}\n" if description else ""
    return f'{comment}{name} = TypedDict(\n    "{name}",\n    {{\n{entries}    }},{"" if total else chr(10) + "    total=False,"}\n)\n'


def fetch_document(url: str) -> Schema:
    with urllib.request.urlopen(url.rstrip("/") + "/openapi.json", timeout=30) as response:
        document: Schema = json.loads(response.read())
        return document


def document_from_binary(binary: Path) -> Schema:
    """Starts the binary on a fresh data directory, reads its document, stops it."""
    with tempfile.TemporaryDirectory(prefix="memoryd-openapi-") as tmp:
        env = {k: v for k, v in os.environ.items() if not re.match(r"^(DATABASE_URL|PORT|HOST|MEMORYD_.*|ANTHROPIC_.*|OPENAI_.*)$", k)}
        proc = subprocess.Popen(
            [str(binary), "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", str(Path(tmp) / "data")],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=tmp,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            assert proc.stdout is not None
            for line in proc.stdout:
                match = re.search(r"memoryd listening on (http://\S+)", line)
                if match:
                    return fetch_document(match.group(1))
                if time.monotonic() > deadline:
                    break
            raise SystemExit(f"{binary} did not start")
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--openapi", type=Path, help="a saved OpenAPI document")
    source.add_argument("--url", help="a running memoryd (its /openapi.json)")
    source.add_argument("--binary", type=Path, default=REPO_ROOT / "dist" / "memoryd", help="start this binary to read its document (default: dist/memoryd)")
    parser.add_argument("--output", type=Path, default=TYPES_FILE)
    parser.add_argument("--check", action="store_true", help="do not write: exit 1 when the output differs")
    args = parser.parse_args(argv)
    if args.openapi is not None:
        document = json.loads(args.openapi.read_text())
    elif args.url is not None:
        document = fetch_document(args.url)
    else:
        document = document_from_binary(args.binary)
    text = Generator(document).generate()
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date: run scripts/generate_types.py", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
