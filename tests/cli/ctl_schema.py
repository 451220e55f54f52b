# SPDX-License-Identifier: LGPL-2.1-or-later
"""A small JSON Schema validator for the entropyctl tests: the keywords the
schemas in man/ use (type, enum, minimum, maximum, properties, required,
additionalProperties, items, and local $ref into $defs), so that the tests
need nothing beyond Python's standard library."""

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def resolve(ref, root):
    if not ref.startswith("#/"):
        raise ValueError(f"only local references are supported: {ref}")
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def validate(value, schema, where="$", root=None):
    """Returns a list of errors, empty when @value matches @schema."""
    root = root if root is not None else schema
    if "$ref" in schema:
        return validate(value, resolve(schema["$ref"], root), where, root)
    errors = []
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            return [f"{where}: {value!r} is not of type {types}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and TYPES["integer"](value) and value < schema["minimum"]:
        errors.append(f"{where}: {value} < {schema['minimum']}")
    if "maximum" in schema and TYPES["integer"](value) and value > schema["maximum"]:
        errors.append(f"{where}: {value} > {schema['maximum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                errors.append(f"{where}: missing {k}")
        for k, v in value.items():
            if k in props:
                errors += validate(v, props[k], f"{where}.{k}", root)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{where}: unexpected {k}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            errors += validate(v, schema["items"], f"{where}[{i}]", root)
    return errors
