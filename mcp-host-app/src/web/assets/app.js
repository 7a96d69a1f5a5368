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

  const extra = document.getElementById("question-extra");
  const choices = document.getElementById("question-choices");

  function list(title, items) {
    const part = element("div", "part");
    part.appendChild(element("h3", null, title));
    const ul = element("ul");
    items.forEach(function (item) {
      ul.appendChild(element("li", null, item));
    });
    part.appendChild(ul);
    extra.appendChild(part);
  }

  // The form of an elicitation: one input per field, labelled with what
  // the server wrote, as text.
  function fields(list) {
    const form = element("div", "fields");
    list.forEach(function (field) {
      const label = element("label", null, (field.title || field.name) + (field.required ? " *" : ""));
      let input;
      if (field.options && field.options.length) {
        input = element("select");
        field.options.forEach(function (option) {
          input.appendChild(element("option", null, option));
        });
      } else {
        input = element("input");
        input.type = field.kind === "boolean" ? "checkbox" : field.kind === "integer" || field.kind === "number" ? "number" : "text";
      }
      input.name = field.name;
      input.dataset.kind = field.kind;
      label.appendChild(input);
      form.appendChild(label);
      if (field.description) {
        form.appendChild(element("p", "hint untrusted", field.description));
      }
    });
    extra.appendChild(form);
  }

  function content() {
    const values = {};
    extra.querySelectorAll("input, select").forEach(function (input) {
      values[input.name] = input.type === "checkbox" ? input.checked : input.value;
    });
    return values;
  }

  function reply(choice) {
    post("/answer", { id: answer, choice: choice, content: content() });
    dialog.close();
  }

  function ask(event) {
    document.getElementById("question-title").textContent = event.title;
    document.getElementById("question-text").textContent = event.text;
    dialog.dataset.kind = event.kind;
    answer = event.id;
    extra.replaceChildren();
    choices.replaceChildren();
    choices.hidden = false;
    document.getElementById("rule-box").hidden = true;
    if (event.arguments) {
      const part = element("div", "part");
      part.appendChild(element("h3", null, "Arguments, whole"));
      part.appendChild(element("pre", "arguments", event.arguments));
      extra.appendChild(part);
    }
    if (event.sources && event.sources.length) {
      list("Untrusted sources in the conversation", event.sources);
    }
    if (event.highlights && event.highlights.length) {
      const part = element("div", "part highlights");
      part.appendChild(element("h3", null, "Argument values also found in untrusted output"));
      const ul = element("ul");
      event.highlights.forEach(function (h) {
        const li = element("li");
        li.appendChild(element("code", null, h.pointer));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(element("mark", null, h.fragment));
        li.appendChild(document.createTextNode(" from " + h.from.join(", ") + (h.whole ? "" : " (part of the value)")));
        ul.appendChild(li);
      });
      part.appendChild(ul);
      extra.appendChild(part);
    }
    if (event.url) {
      const part = element("div", "part");
      part.appendChild(element("h3", null, "The address (copy it to open it yourself)"));
      part.appendChild(element("pre", "untrusted url", event.url));
      extra.appendChild(part);
    }
    if (event.fields) {
      fields(event.fields);
    }
    event.choices.forEach(function (c) {
      const button = element("button", null, c.label);
      button.type = "button";
      button.id = c.choice;
      button.addEventListener("click", function () {
        if (c.choice === "rule") {
          // The rules are shown before they are written.
          document.getElementById("rule-file").textContent = event.config;
          document.getElementById("rule-text").textContent = event.rules
            .map(function (r) {
              return JSON.stringify({ from: r.from, to: r.to });
            })
            .join("\n");
          document.getElementById("rule-box").hidden = false;
          choices.hidden = true;
          return;
        }
        reply(c.choice);
      });
      choices.appendChild(button);
    });
    if (!dialog.open) {
      dialog.showModal();
    }
  }


  // MCP Apps: the host side of each view's protocol. A view runs in the
  // sandbox proxy's frame (another origin); its messages come through the
  // proxy, and only from it. What it asks of the host goes to the app,
  // which decides; nothing a view sends is written as markup.
  const views = new Map(); // the proxy's window -> the view's state
  const going = new Map(); // views told of their teardown, not yet gone
  const proxyOrigin = transcript.dataset.proxy;

  function toView(view, message) {
    view.frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, message), proxyOrigin);
  }

  function answerView(view, id, result, error) {
    toView(view, error ? { id: id, error: error } : { id: id, result: result });
  }

  // A request of the view the app answers: `path` gets the view's id and
  // `body`; the reply is the JSON-RPC result, or its error.
  function viaApp(view, message, path, body) {
    post(path, Object.assign({ view: view.id }, body))
      .then(function (response) {
        return response.json().then(function (json) {
          return { ok: response.ok, json: json };
        });
      })
      .then(function (answer) {
        if (answer.ok && answer.json.error === undefined) {
          answerView(view, message.id, answer.json.result || {});
        } else {
          answerView(view, message.id, null, answer.json.error || { code: -32000, message: "refused" });
        }
      })
      .catch(function () {
        answerView(view, message.id, null, { code: -32603, message: "the host did not answer" });
      });
  }

  function fromView(view, message) {
    const params = message.params || {};
    switch (message.method) {
      case "ui/notifications/sandbox-proxy-ready":
        if (!view.sent) {
          view.sent = true;
          toView(view, {
            method: "ui/notifications/sandbox-resource-ready",
            params: { html: view.html, permissions: view.permissions },
          });
        }
        return;
      case "ui/initialize":
        answerView(view, message.id, view.initialize);
        return;
      case "ui/notifications/initialized":
        if (!view.initialized) {
          view.initialized = true;
          view.box.dataset.state = "initialized";
          toView(view, { method: "ui/notifications/tool-input", params: { arguments: view.arguments } });
          toView(view, { method: "ui/notifications/tool-result", params: view.result });
        }
        return;
      case "ui/notifications/size-changed": {
        const height = Math.max(0, Math.min(Number(params.height) || 0, 800));
        view.frame.style.height = height + "px";
        view.box.dataset.height = String(height);
        return;
      }
      case "ping":
        answerView(view, message.id, {});
        return;
      case "ui/request-display-mode":
        answerView(view, message.id, { mode: "inline" });
        return;
      case "tools/call":
        viaApp(view, message, "/view/call", { name: params.name, arguments: params.arguments || {} });
        return;
      case "resources/read":
        viaApp(view, message, "/view/read", { uri: params.uri });
        return;
      case "ui/message":
        viaApp(view, message, "/view/message", { role: params.role, content: params.content });
        return;
      case "ui/update-model-context":
        viaApp(view, message, "/view/context", {
          content: params.content,
          structuredContent: params.structuredContent,
        });
        return;
      case "ui/open-link":
        post("/view/link", { view: view.id, url: params.url })
          .then(function (response) {
            return response.json();
          })
          .then(function (answer) {
            if (answer.open) {
              window.open(answer.url, "_blank", "noopener,noreferrer");
              answerView(view, message.id, {});
            } else {
              answerView(view, message.id, null, { code: -32000, message: "Link opening denied by user" });
            }
          })
          .catch(function () {
            answerView(view, message.id, null, { code: -32000, message: "Link opening denied by user" });
          });
        return;
      case "notifications/message":
        post("/view/log", { view: view.id, level: params.level, data: params.data });
        return;
      default:
        if (message.id !== undefined && message.method !== undefined) {
          answerView(view, message.id, null, { code: -32601, message: "method not found" });
        } else if (message.id !== undefined && view.pending.has(message.id)) {
          const done = view.pending.get(message.id);
          view.pending.delete(message.id);
          done();
        }
    }
  }

  window.addEventListener("message", function (event) {
    if (event.origin !== proxyOrigin) {
      return;
    }
    const view = views.get(event.source);
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") {
      return;
    }
    if (view) {
      fromView(view, message);
      return;
    }
    // A view going away is heard only for its answer to the teardown.
    const leaving = going.get(event.source);
    if (leaving && message.method === undefined && leaving.pending.has(message.id)) {
      const done = leaving.pending.get(message.id);
      leaving.pending.delete(message.id);
      done();
    }
  });

  function showView(event) {
    const box = element("section", "view");
    box.dataset.view = event.id;
    box.dataset.state = "loading";
    box.appendChild(element("p", "view-origin untrusted", "A view written by server " + event.server + " (" + event.uri + ")"));
    transcript.appendChild(box);
    post("/view/open", { view: event.id })
      .then(function (response) {
        return response.json().then(function (json) {
          return { ok: response.ok, json: json };
        });
      })
      .then(function (answer) {
        if (!answer.ok) {
          box.dataset.state = "refused";
          box.appendChild(element("p", "notice", answer.json.error ? answer.json.error.message : "not shown"));
          return;
        }
        if (answer.json.origins && answer.json.origins.length) {
          box.appendChild(element("p", "view-reach", "It may reach other sites: " + answer.json.origins.join(", ")));
        }
        const frame = element("iframe", "view-frame");
        // The proxy needs scripts and its own origin; the view inside it
        // gets neither the app's origin nor its own.
        frame.setAttribute("sandbox", "allow-scripts allow-same-origin");
        if (answer.json.allow) {
          frame.setAttribute("allow", answer.json.allow);
        }
        frame.setAttribute("title", "view of " + event.server);
        frame.style.height = "120px";
        const view = {
          id: event.id,
          box: box,
          frame: frame,
          html: answer.json.html,
          permissions: answer.json.permissions,
          initialize: answer.json.initialize,
          arguments: answer.json.arguments,
          result: answer.json.result,
          pending: new Map(),
          next: 1,
          sent: false,
          initialized: false,
        };
        box.appendChild(frame);
        frame.src = event.proxy;
        views.set(frame.contentWindow, view);
      });
  }

  // Every view is told it goes (and given a moment to keep its work)
  // before another conversation is shown.
  function tearDown() {
    const waits = [];
    const sources = [];
    views.forEach(function (view, source) {
      if (!view.initialized) {
        return;
      }
      going.set(source, view);
      sources.push(source);
      const id = "teardown-" + view.next++;
      waits.push(
        new Promise(function (resolve) {
          view.pending.set(id, resolve);
          setTimeout(resolve, 1000);
          toView(view, { id: id, method: "ui/resource-teardown", params: { reason: "the conversation was closed" } });
        }),
      );
    });
    views.clear();
    return Promise.all(waits).then(function () {
      sources.forEach(function (source) {
        going.delete(source);
      });
    });
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
      ask(event);
    },
    view(event) {
      current = null;
      showView(event);
    },
    answered(event) {
      if (answer === event.id && dialog.open) {
        dialog.close();
      }
    },
    progress(event) {
      let bar = document.getElementById("progress");
      if (!bar) {
        bar = element("p", "progress");
        bar.id = "progress";
        transcript.appendChild(bar);
      }
      let text = event.total
        ? Math.round((100 * event.progress) / event.total) + "%"
        : "step " + event.progress;
      if (event.task) {
        text = "task " + event.task.id + " " + event.task.status;
      }
      bar.textContent = text + (event.message ? " " + event.message : "");
    },
    notice(event) {
      transcript.appendChild(element("p", "notice", event.text));
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
      const bar = document.getElementById("progress");
      if (bar) {
        bar.removeAttribute("id");
      }
      cancel.disabled = true;
      if (event.error) {
        transcript.appendChild(element("p", "error", event.error));
      }
      transcript.dataset.turns = String(Number(transcript.dataset.turns || 0) + 1);
    },
    reload() {
      window.location.reload();
    },
    reset() {
      // Another conversation is shown: what follows is its history.
      current = null;
      // A view is kept, hidden, until it answered its teardown.
      const going = [];
      views.forEach(function (view) {
        view.box.hidden = true;
        going.push(view.box);
      });
      tearDown().then(function () {
        going.forEach(function (box) {
          box.remove();
        });
      });
      Array.from(transcript.children).forEach(function (child) {
        if (!going.includes(child)) {
          child.remove();
        }
      });
      const note = document.getElementById("taint");
      if (note) {
        note.remove();
      }
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
  // A new conversation without leaving the page, so that the views shown
  // are told of their teardown and can answer before they go.
  const fresh = document.querySelector("form.new");
  if (fresh) {
    fresh.addEventListener("submit", function (submitted) {
      submitted.preventDefault();
      post("/new");
    });
  }
  document.getElementById("rule-write").addEventListener("click", function () {
    reply("rule");
  });
  document.getElementById("rule-back").addEventListener("click", function () {
    document.getElementById("rule-box").hidden = true;
    choices.hidden = false;
  });
  // Escape does not close a question: it waits for one of its choices,
  // and nothing is allowed or endorsed by default.
  dialog.addEventListener("cancel", function (cancelled) {
    cancelled.preventDefault();
  });
})();
