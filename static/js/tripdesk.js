// The little behaviour TripDesk's pages have, kept out of the HTML: the Content-Security-Policy forbids inline
// script, event-handler attributes and htmx's hx-on (which needs eval). Elements opt in with data- attributes.
"use strict";

// <select data-autosubmit>: choosing an option submits its form (the language switcher).
document.addEventListener("change", (event) => {
  const select = event.target;
  if (select instanceof HTMLSelectElement && select.hasAttribute("data-autosubmit") && select.form) {
    select.form.submit();
  }
});

// The sticky header's height as the CSS variable --topbar-height, which tripdesk.css makes the page's
// scroll-padding-top: whatever the page scrolls to (a new reply, an #anchor, a focused field) lands below the header,
// not under it. Measured, not assumed: the header wraps to two or three lines on a phone, and changes with the
// language, the fonts and the signed-in links.
const topbar = document.querySelector(".topbar");

function noteTopbarHeight() {
  const height = topbar ? Math.ceil(topbar.getBoundingClientRect().height) : 0;
  document.documentElement.style.setProperty("--topbar-height", `${height}px`);
}

noteTopbarHeight();
if (topbar && "ResizeObserver" in window) {
  new ResizeObserver(noteTopbarHeight).observe(topbar);
}

// The newest turn of a conversation, brought into view below the sticky header: the traveller's message with the
// start of the reply when both fit above the composer, otherwise the reply from its first line.
function revealLatestTurn(list) {
  const turns = list.querySelectorAll(".turn");
  const turn = turns[turns.length - 1] || list.lastElementChild;
  if (!turn) {
    return;
  }
  noteTopbarHeight();
  const reply = turn.querySelector(".bubble.assistant") || turn;
  const composer = document.querySelector(".composer");
  const room = window.innerHeight - (topbar?.offsetHeight || 0) - (composer?.offsetHeight || 0) - 16;
  const lineHeight = parseFloat(getComputedStyle(reply).lineHeight) || 24;
  const replyStart = reply.getBoundingClientRect().top - turn.getBoundingClientRect().top;
  const target = replyStart + 2 * lineHeight <= room ? turn : reply;
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  target.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "start" });
}

// After an htmx request from a form: <form data-reset-on-success> empties itself when the request succeeded, and
// <form data-scroll-to-latest="#messages"> brings the newest turn of that element into view (revealLatestTurn).
document.addEventListener("htmx:afterRequest", (event) => {
  const form = event.detail.elt;
  if (!(form instanceof HTMLFormElement)) {
    return;
  }
  if (event.detail.successful && form.hasAttribute("data-reset-on-success")) {
    form.reset();
  }
  // A confirmation card answered (Confirm or Change): its buttons stay disabled; the server decides what a repeat
  // does anyway (a pending action runs at most once).
  if (event.detail.successful && form.hasAttribute("data-confirmation-answer")) {
    const card = form.closest("[data-card=confirmation]");
    card?.querySelectorAll("button").forEach((button) => {
      button.disabled = true;
    });
    card?.setAttribute("data-answered", "");
  }
  const list = form.dataset.scrollToLatest && document.querySelector(form.dataset.scrollToLatest);
  if (list) {
    revealLatestTurn(list);
  }
});

// <span data-deadline="ISO time">: a countdown to a booking's payment deadline ("12:34 left"), refreshed every
// second; at zero it says data-expired-text and its Pay now button is disabled (the server refuses a late payment
// anyway: this only saves a click). New ones come with htmx swaps, so every tick looks for them afresh.
function tickCountdowns() {
  const now = Date.now();
  document.querySelectorAll("[data-deadline]").forEach((el) => {
    const left = Math.floor((Date.parse(el.dataset.deadline) - now) / 1000);
    if (Number.isNaN(left)) {
      return;
    }
    if (left <= 0) {
      el.textContent = el.dataset.expiredText || "0:00";
      el.setAttribute("data-expired", "");
      el.closest("[data-pay]")?.querySelectorAll("button").forEach((button) => {
        button.disabled = true;
      });
      return;
    }
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    el.textContent = `${minutes}:${seconds}`;
  });
}
tickCountdowns();
setInterval(tickCountdowns, 1000);

// <button data-close-details>: folds the <details> it is in (Keep it, in a delete confirmation).
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-close-details]") : null;
  const details = button?.closest("details");
  if (details) {
    details.open = false;
  }
});
