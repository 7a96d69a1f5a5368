"""Feeds schemas through the official SDKs' own schema transformers.

Reads {"openai": [schema, ...], "gemini": [schema, ...]} on stdin and writes
{"openai": [result, ...], "gemini": [result, ...]} on stdout, where each
result is {"ok": transformed} or {"error": message}:

- openai: `openai.lib._pydantic._ensure_strict_json_schema`, the transformer
  behind `to_strict_json_schema` (it works on dict schemas, in place);
- gemini: `google.genai._transformers.process_schema` (Gemini API mode, no
  client), then `google.genai.types.Schema`, dumped as the SDK sends it.
"""

import copy
import json
import sys

from openai.lib._pydantic import _ensure_strict_json_schema
from google.genai import _transformers, types


def openai(schema):
    work = copy.deepcopy(schema)
    return _ensure_strict_json_schema(work, path=(), root=work)


def gemini(schema):
    work = copy.deepcopy(schema)
    _transformers.process_schema(work, None)
    parsed = types.Schema.model_validate(work)
    return parsed.model_dump(mode="json", by_alias=True, exclude_none=True)


def run(fn, schema):
    try:
        return {"ok": fn(schema)}
    except Exception as e:  # any failure is the oracle's verdict
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    request = json.load(sys.stdin)
    reply = {
        "openai": [run(openai, s) for s in request.get("openai", [])],
        "gemini": [run(gemini, s) for s in request.get("gemini", [])],
    }
    json.dump(reply, sys.stdout)


if __name__ == "__main__":
    main()
