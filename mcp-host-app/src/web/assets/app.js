// The app's only script. Everything a server or the model wrote arrives
// already made visible by the host (hidden and bidirectional characters
// escaped) and is written as text, never as markup.
"use strict";

(function () {
  const transcript = document.getElementById("transcript");
  if (!transcript) {
    return;
  }
  const form = document.getElementById("say");
  const message = document.getElementById("message");
  const cancel = document.getElementById("cancel");
  const dialog = document.getElementById("question");
  let answer = null;
  let current = null;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function post(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
      credentials: "same-origin",
    });
  }

  function assistant() {
    if (!current) {
      current = element("p", "assistant", "");
      transcript.appendChild(current);
    }
    return current;
  }

  const handlers = {
    user(event) {
      current = null;
      transcript.appendChild(element("p", "user", event.text));
      cancel.disabled = false;
    },
    text(event) {
      assistant().textContent += event.text;
    },
    call(event) {
      current = null;
      const call = element("details", "call " + event.decision);
      const summary = element("summary");
      summary.appendChild(element("code", "name", event.name));
      summary.appendChild(element("span", "decision", " " + event.decision));
      call.appendChild(summary);
      call.appendChild(element("p", "reason", event.reason));
      call.appendChild(element("pre", "arguments", event.arguments));
      if (event.result) {
        const result = element("details", "result");
        result.appendChild(element("summary", null, "Result"));
        result.appendChild(element("pre", "untrusted", event.result));
        call.appendChild(result);
      }
      transcript.appendChild(call);
    },
    question(event) {
      document.getElementById("question-title").textContent = event.title;
      document.getElementById("question-text").textContent = event.text;
      dialog.dataset.kind = event.kind;
      answer = event.id;
      if (!dialog.open) {
        dialog.showModal();
      }
    },
    answered(event) {
      if (answer === event.id && dialog.open) {
        dialog.close();
      }
    },
    taint(event) {
      let note = document.getElementById("taint");
      if (!note) {
        note = element("p", "taint");
        note.id = "taint";
        transcript.parentNode.insertBefore(note, transcript);
      }
      note.textContent = event.tainted
        ? "Untrusted output in this conversation: " + event.sources.join(", ")
        : "No untrusted output in this conversation.";
      note.dataset.tainted = String(event.tainted);
    },
    end(event) {
      current = null;
      cancel.disabled = true;
      if (event.error) {
        transcript.appendChild(element("p", "error", event.error));
      }
      transcript.dataset.turns = String(Number(transcript.dataset.turns || 0) + 1);
    },
    reload() {
      window.location.reload();
    },
  };

  const source = new EventSource("/events");
  source.onmessage = function (message) {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch (_) {
      return;
    }
    const handle = handlers[event.type];
    if (handle) {
      handle(event);
    }
  };

  form.addEventListener("submit", function (submitted) {
    submitted.preventDefault();
    const text = message.value;
    if (!text.trim()) {
      return;
    }
    message.value = "";
    post("/say", { text: text });
  });
  cancel.addEventListener("click", function () {
    post("/cancel");
  });
  document.getElementById("allow").addEventListener("click", function () {
    post("/answer", { id: answer, allow: true });
    dialog.close();
  });
  document.getElementById("deny").addEventListener("click", function () {
    post("/answer", { id: answer, allow: false });
    dialog.close();
  });
  // Escape closes the dialog without an answer: the question stays, and
  // nothing is endorsed by default.
})();
