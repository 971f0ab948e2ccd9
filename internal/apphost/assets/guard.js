// The guard of the app's frame (mcpv app --open), its first script: it
// runs before any of the app's, in the app's own window. The frame's
// policy governs what the app fetches, but no policy governs WebRTC: a
// peer connection reaches any address over UDP (a STUN request is one
// packet). So the guard takes away every interface of WebRTC from the
// window (RTCPeerConnection and its data channels, under every name),
// and XSLTProcessor, which writes attributes no check below sees. A frame
// of the app's own content (a srcdoc) would be a window of its own, with
// WebRTC whole: the host makes every "srcdoc" of the app's markup
// "src_doc" before the frame gets it, and this document requires Trusted
// Types (the policy beside this script), whose default policy, this one,
// is the only one allowed: what a script sets as a frame's srcdoc is
// refused, "srcdoc" in HTML a script inserts becomes "src_doc", and
// document.write, whose pieces the parser joins to the markup around
// them, is refused.
"use strict";
(() => {
  for (const name of Object.getOwnPropertyNames(window)) {
    if (/^(webkit)?RTC[A-Z]|^XSLTProcessor$/.test(name)) delete window[name];
  }
  if (!window.trustedTypes) return; // the host page renders no app in such a browser (host.js)
  trustedTypes.createPolicy("default", {
    createHTML: (html, type, sink) => /srcdoc/i.test(sink) || /^Document writeln?$/.test(sink) ? null : String(html).replace(/srcdoc/gi, "src_doc"),
    createScript: (script) => script,
    createScriptURL: (url) => url,
  });
})();
