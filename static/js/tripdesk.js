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

// After an htmx request from a form: <form data-reset-on-success> empties itself when the request succeeded, and
// <form data-scroll-to-latest="#messages"> brings the newest child of that element into view.
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
  list?.lastElementChild?.scrollIntoView({ behavior: "smooth", block: "start" });
});
