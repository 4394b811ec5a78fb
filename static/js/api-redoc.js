// Starts ReDoc on the API reference page (templates/api/redoc.html), kept out of the HTML: the
// Content-Security-Policy forbids inline script. ReDoc's own <style> elements get the nonce of this script's tag.
"use strict";

(() => {
  const container = document.getElementById("redoc-container");
  const nonce = document.currentScript?.nonce || undefined;
  window.Redoc.init(container.dataset.specUrl, { nonce }, container);
})();
