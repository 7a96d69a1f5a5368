"""Checks provider JSON against the official SDKs' own types, and makes
responses and stream events with those types.

Reads one JSON document on stdin and writes one on stdout:

- {"op": "validate", "items": [{"kind": K, "body": B}, ...]} answers
  {"results": [{"valid": true} | {"valid": false, "error": "..."}, ...]}.
  Request kinds are validated strictly, unknown fields refused.
- {"op": "fixtures"} answers {"name": body or [events], ...}, each built
  as an SDK model and dumped to JSON.
"""

import json
import sys

import typing_extensions
from pydantic import ConfigDict, TypeAdapter


def forbid_extra(root):
    """Unknown keys become errors in `root` and every TypedDict its
    fields reach."""
    seen = set()
    stack = [root]
    while stack:
        kind = stack.pop()
        if id(kind) in seen:
            continue
        seen.add(id(kind))
        if isinstance(kind, type) and typing_extensions.is_typeddict(kind):
            kind.__pydantic_config__ = ConfigDict(
                extra="forbid", arbitrary_types_allowed=True
            )
            stack.extend(typing_extensions.get_type_hints(kind, include_extras=True).values())
        else:
            stack.extend(typing_extensions.get_args(kind))
    return root


from anthropic.types import Message, RawMessageStreamEvent
from anthropic.types.message_create_params import (
    MessageCreateParamsNonStreaming,
    MessageCreateParamsStreaming,
)
from google.genai import types as genai
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming,
    CompletionCreateParamsStreaming,
)


def consume(value):
    """Walks the validated value: pydantic checks `Iterable` fields only
    as they are iterated."""
    if isinstance(value, dict):
        return {k: consume(v) for k, v in value.items()}
    if isinstance(value, (str, bytes)):
        return value
    if hasattr(value, "__iter__"):
        return [consume(v) for v in value]
    return value


def typed_dict(kind):
    adapter = TypeAdapter(forbid_extra(kind))
    return lambda body: consume(adapter.validate_python(body, strict=True))


def lazy(make, *args):
    """A validator built on first use: building one is most of the
    driver's time."""
    built = []

    def run(body):
        if not built:
            built.append(make(*args))
        return built[0](body)

    return run


GEMINI_REQUEST = {
    "contents": TypeAdapter(list[genai.Content]),
    "systemInstruction": TypeAdapter(genai.Content),
    "tools": TypeAdapter(list[genai.Tool]),
    "toolConfig": TypeAdapter(genai.ToolConfig),
    "generationConfig": TypeAdapter(genai.GenerationConfig),
}


def gemini_request(body):
    """The REST body, camelCase, each field by the SDK model of its part
    (the models forbid unknown fields and take camelCase aliases)."""
    if not isinstance(body, dict):
        raise ValueError("the body is not an object")
    for key, value in body.items():
        if key not in GEMINI_REQUEST:
            raise ValueError(f"unknown field {key!r}")
        GEMINI_REQUEST[key].validate_json(json.dumps(value), strict=True)
    if "contents" not in body:
        raise ValueError("no contents")


def model(cls, strict=False):
    return lambda body: cls.model_validate_json(json.dumps(body), strict=strict)


def openai_request(kind, stream):
    check = typed_dict(kind)

    def run(body):
        check(body)
        if bool(body.get("stream")) != stream:
            raise ValueError("`stream` does not match the kind")

    return run


def anthropic_event(body):
    """A stream event; `ping` is not in the SDK's event union, its stream
    reader skips it by the event name before validating."""
    if body == {"type": "ping"}:
        return
    TypeAdapter(RawMessageStreamEvent).validate_json(json.dumps(body))


VALIDATORS = {
    "openai.request": lazy(openai_request, CompletionCreateParamsNonStreaming, False),
    "openai.stream_request": lazy(openai_request, CompletionCreateParamsStreaming, True),
    "anthropic.request": lazy(typed_dict, MessageCreateParamsNonStreaming),
    "anthropic.stream_request": lazy(typed_dict, MessageCreateParamsStreaming),
    "gemini.request": gemini_request,
    "openai.response": model(ChatCompletion),
    "openai.chunk": model(ChatCompletionChunk),
    "anthropic.response": model(Message),
    "anthropic.event": anthropic_event,
    "gemini.response": model(genai.GenerateContentResponse, strict=True),
}


def validate(item):
    try:
        VALIDATORS[item["kind"]](item["body"])
        return {"valid": True}
    except Exception as error:
        return {"valid": False, "error": str(error)}


def dump(value):
    if isinstance(value, list):
        return [dump(v) for v in value]
    if isinstance(value, genai.GenerateContentResponse):
        return json.loads(value.model_dump_json(by_alias=True, exclude_none=True))
    return json.loads(value.model_dump_json())


def openai_fixtures():
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "total_tokens": 150,
        "prompt_tokens_details": {"cached_tokens": 100},
    }
    calls = [
        {"id": "call_a", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
        {"id": "call_b", "type": "function",
         "function": {"name": "get_time", "arguments": '{"zone":"UTC"'}},
    ]
    whole = ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-x",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None,
                     "message": {"role": "assistant", "content": "Let me look.",
                                 "tool_calls": calls}}],
        "usage": usage,
    })

    def chunk(delta, finish=None, with_usage=False):
        return ChatCompletionChunk.model_validate({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-x",
            "choices": [] if with_usage else [
                {"index": 0, "delta": delta, "finish_reason": finish}],
            "usage": usage if with_usage else None,
        })

    def call(index, id=None, name=None, arguments=None):
        function = {}
        if name is not None:
            function["name"] = name
        if arguments is not None:
            function["arguments"] = arguments
        out = {"index": index, "function": function}
        if id is not None:
            out["id"] = id
            out["type"] = "function"
        return {"tool_calls": [out]}

    stream = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Let me "}),
        chunk({"content": "look."}),
        chunk(call(0, "call_a", "get_weather", "")),
        chunk(call(1, "call_b", "get_time", "")),
        chunk(call(0, arguments='{"city":')),
        chunk(call(1, arguments='{"zone":')),
        chunk(call(0, arguments='"Paris"}')),
        chunk(call(1, arguments='"UTC"')),
        chunk({}, finish="tool_calls"),
        chunk(None, with_usage=True),
    ]
    return {"openai.whole": dump(whole), "openai.stream": dump(stream)}


def anthropic_fixtures():
    whole = Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_a", "name": "get_weather",
             "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_b", "name": "get_time",
             "input": {"zone": "UTC"}},
        ],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 30,
                  "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0},
    })
    start = whole.model_dump()
    start["content"] = []
    start["stop_reason"] = None
    start["usage"] = {"input_tokens": 20, "output_tokens": 1,
                      "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0}
    events = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "text_delta", "text": "Let me "}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "text_delta", "text": "look."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "tool_use", "id": "toolu_a", "name": "get_weather",
                           "input": {}}},
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "input_json_delta", "partial_json": '{"city":'}},
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "input_json_delta", "partial_json": '"Paris"}'}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2,
         "content_block": {"type": "tool_use", "id": "toolu_b", "name": "get_time",
                           "input": {}}},
        {"type": "content_block_delta", "index": 2,
         "delta": {"type": "input_json_delta", "partial_json": '{"zone": "UTC"}'}},
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": 30}},
        {"type": "message_stop"},
    ]
    adapter = TypeAdapter(RawMessageStreamEvent)
    stream = [json.loads(adapter.dump_json(adapter.validate_python(e))) for e in events]
    return {"anthropic.whole": dump(whole), "anthropic.stream": stream}


def gemini_fixtures():
    def response(parts, finish=None, usage=None):
        return genai.GenerateContentResponse(
            candidates=[genai.Candidate(
                content=genai.Content(role="model", parts=parts),
                finish_reason=finish, index=0)],
            usage_metadata=usage,
        )

    def usage(candidates):
        return genai.GenerateContentResponseUsageMetadata(
            prompt_token_count=120, candidates_token_count=candidates,
            cached_content_token_count=100, thoughts_token_count=5,
            total_token_count=120 + candidates + 5)

    weather = genai.Part(
        function_call=genai.FunctionCall(name="get_weather", args={"city": "Paris"}),
        thought_signature=b"sig-a")
    time = genai.Part(function_call=genai.FunctionCall(
        id="fc_b", name="get_time", args={"zone": "UTC"}))
    whole = response(
        [genai.Part(text="Let me "), genai.Part(text="look."), weather, time],
        genai.FinishReason.STOP, usage(25))
    stream = [
        response([genai.Part(text="Let me ")], None, usage(2)),
        response([genai.Part(thought=True, text="thinking"), genai.Part(text="look.")],
                 None, usage(3)),
        response([weather, time], genai.FinishReason.STOP, usage(25)),
    ]
    return {"gemini.whole": dump(whole), "gemini.stream": dump(stream)}


def main():
    request = json.load(sys.stdin)
    if request["op"] == "validate":
        answer = {"results": [validate(item) for item in request["items"]]}
    else:
        answer = {**openai_fixtures(), **anthropic_fixtures(), **gemini_fixtures()}
    json.dump(answer, sys.stdout)


main()
