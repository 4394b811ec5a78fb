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

// Screen readers hear each new reply: every reply, staff message or notice added to #messages (a sent message, a
// chip, a card's button, or the page's live part) has its text copied into #chat-announcer, a visually hidden
// role="log" region. The turn itself is not live: it would be read whole, the traveller's own words and every card.
// An error bubble says itself (role="alert").
const announcer = document.getElementById("chat-announcer");
const messageList = document.getElementById("messages");
const ANNOUNCED = ".bubble.assistant:not([role=alert]), .bubble.staff, .handover-sent";
const ANNOUNCEMENTS_KEPT = 5;

function announce(node) {
  const bubbles = node.matches(ANNOUNCED) ? [node] : node.querySelectorAll(ANNOUNCED);
  bubbles.forEach((bubble) => {
    const text = (bubble.innerText || bubble.textContent).replace(/\s+/g, " ").trim();  // innerText: a <br> is a break
    if (!text) {
      return;
    }
    const line = document.createElement("p");
    line.textContent = text;
    announcer.append(line);
    while (announcer.childElementCount > ANNOUNCEMENTS_KEPT) {
      announcer.firstElementChild.remove();
    }
  });
}

if (announcer && messageList) {
  new MutationObserver((changes) => {
    changes.forEach((change) => {
      change.addedNodes.forEach((node) => {
        if (node instanceof Element) {
          announce(node);
        }
      });
    });
  }).observe(messageList, { childList: true });
}

// Keyboard users keep their place: when a reply arrives after a button that the request disabled (Confirm, Pay now,
// Send), the focus would be lost to the page's start, so it goes back to the message box. Only after a key press:
// a tap on a phone would otherwise pop up its keyboard.
let lastInputWasKeyboard = false;
document.addEventListener("keydown", () => {
  lastInputWasKeyboard = true;
}, true);
document.addEventListener("pointerdown", () => {
  lastInputWasKeyboard = false;
}, true);

document.addEventListener("htmx:afterSettle", (event) => {
  const composer = document.getElementById("message");
  const source = event.detail.requestConfig?.elt;
  if (!composer || !lastInputWasKeyboard || !(source instanceof HTMLFormElement) || !source.dataset.scrollToLatest) {
    return;
  }
  const focused = document.activeElement;
  if (!focused || focused === document.body || focused.disabled || !focused.isConnected) {
    composer.focus({ preventScroll: true });
  }
});

// The live channel (config/live.py, README "Live pages"): one EventSource per page whose <body> has data-live-url.
// Its "changed" event makes every [data-live-news] element ask for its news (their "live-news" trigger: the request
// their polling makes, so what is shown and marked read has one path); while it is open their every-5-s polling is
// skipped (a request no event triggered is cancelled), and when it drops they poll again until it is back (the
// browser reconnects by itself, sending the last event's id, and the stream starts with "changed").
// Its "progress" events show, in #turn-progress, the steps of the turn this page is waiting for (the token the page
// added to that request) until the reply comes and takes their place.
const liveUrl = document.body.dataset.liveUrl;
const progressBox = document.getElementById("turn-progress");
let liveOpen = false;
let turnToken = "";

function newToken() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);  // (crypto.randomUUID needs a secure context; this does not)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function clearProgress() {
  if (progressBox) {
    progressBox.replaceChildren();
    progressBox.hidden = true;
  }
}

// Opened once htmx has set the page up (its first htmx:load), so the "changed" every stream starts with finds the
// [data-live-news] elements ready to ask. A stream that drops is reopened by the browser itself; one the server
// refuses (503: Redis does not answer) is closed for good by EventSource, so the page opens a new one after a wait
// that grows with each refusal (LIVE_REOPEN_MS), polling meanwhile: it comes back once Redis does, without a reload.
const LIVE_REOPEN_MS = [15_000, 30_000, 60_000, 120_000, 300_000];
let liveRefusals = 0;

function openLiveChannel() {
  const source = new EventSource(liveUrl, { withCredentials: true });
  source.addEventListener("open", () => {
    liveOpen = true;
    liveRefusals = 0;
    document.body.dataset.live = "open";
  });
  source.addEventListener("error", () => {
    liveOpen = false;
    if (source.readyState !== EventSource.CLOSED) {
      document.body.dataset.live = "reconnecting";
      return;
    }
    document.body.dataset.live = "off";
    const wait = LIVE_REOPEN_MS[Math.min(liveRefusals, LIVE_REOPEN_MS.length - 1)];
    liveRefusals += 1;
    setTimeout(openLiveChannel, wait);
  });
  source.addEventListener("changed", () => {
    document.querySelectorAll("[data-live-news]").forEach((el) => window.htmx?.trigger(el, "live-news"));
  });
  source.addEventListener("progress", (event) => {
    let step;
    try {
      step = JSON.parse(event.data);
    } catch {
      return;
    }
    if (!progressBox || !turnToken || step.token !== turnToken) {
      return;
    }
    progressBox.insertAdjacentHTML("beforeend", step.html);  // rendered by our server, like every htmx swap
    window.htmx?.process(progressBox);
    progressBox.hidden = false;
  });
}

if (liveUrl && "EventSource" in window) {
  document.addEventListener("htmx:load", openLiveChannel, { once: true });
}

document.addEventListener("htmx:confirm", (event) => {
  if (liveOpen && !event.detail.triggeringEvent && event.detail.elt.hasAttribute("data-live-news")) {
    event.preventDefault();  // the live channel is open: it says when there is news
  }
});

document.addEventListener("htmx:configRequest", (event) => {
  if (!progressBox || event.detail.path !== progressBox.dataset.sendUrl) {
    return;
  }
  clearProgress();
  turnToken = liveOpen ? newToken() : "";
  if (turnToken) {
    event.detail.parameters.live_token = turnToken;
    // The traveller's own words first, above the steps (the reply's turn repeats them when it comes).
    const said = String(event.detail.parameters.message || "").trim();
    if (said) {
      const bubble = document.createElement("div");
      bubble.className = "bubble user";
      bubble.textContent = said;
      progressBox.append(bubble);
      progressBox.hidden = false;
    }
  }
});

document.addEventListener("htmx:afterRequest", (event) => {
  if (progressBox && event.detail.requestConfig?.path === progressBox.dataset.sendUrl) {
    turnToken = "";
    clearProgress();
  }
});
