// The sandbox proxy of MCP Apps: served on an origin of its own, framed by
// the app's page, it frames one view and passes messages between the two.
// The view's frame is sandboxed without allow-same-origin (an opaque
// origin) and inherits this page's content security policy, which the
// host set from what the view's server declared.
"use strict";

(() => {
  const host = document.documentElement.dataset.host;
  let view = null;

  const reserved = (message) =>
    typeof message?.method === "string" && message.method.startsWith("ui/notifications/sandbox-");

  window.addEventListener("message", (event) => {
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (event.source === window.parent && event.origin === host) {
      if (message.method === "ui/notifications/sandbox-resource-ready") {
        if (view !== null) return; // one view per proxy, loaded once
        const params = message.params || {};
        if (typeof params.html !== "string") return;
        view = document.createElement("iframe");
        view.setAttribute("sandbox", "allow-scripts allow-forms");
        // The permissions the host passed on (only those the view's
        // server declared), as the frame's permissions policy.
        const features = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };
        const allow = Object.keys(params.permissions || {})
          .filter((key) => Object.prototype.hasOwnProperty.call(features, key))
          .map((key) => features[key]);
        if (allow.length > 0) view.setAttribute("allow", allow.join("; "));
        view.setAttribute("title", "view");
        view.style.height = "100vh";
        view.srcdoc = params.html;
        document.body.append(view);
      } else if (!reserved(message) && view !== null) {
        // An opaque origin has no name to address it by.
        view.contentWindow.postMessage(message, "*");
      }
    } else if (view !== null && event.source === view.contentWindow) {
      if (!reserved(message)) window.parent.postMessage(message, host);
    }
  });

  window.parent.postMessage(
    { jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} },
    host,
  );
})();
