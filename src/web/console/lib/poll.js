// Following something that changes on the server (a tileset version processing, an import) without
// giving up when the server is briefly gone: a failed refresh says so in a note and is retried with
// backoff; the first answer after that hides the note and the page goes on updating.
import { fill, h } from "./dom.js";
import { current } from "./state.js";

/** Longest wait between two tries while the server does not answer. */
export const MAX_BACKOFF_MS = 15_000;

/** A note for `poll` to fill: hidden until a refresh fails. */
export const pollNote = (id) => h("div.alert.alert-warn.poll-note", { id, role: "status", hidden: true });

/**
 * Runs `step` every `everyMs` while the page `view` is shown and `step` resolves true. A step that fails
 * (network error, 5xx, anything but an ended session) fills `note` with why and when the next try is,
 * and is tried again after 2, 4, 8 … times `everyMs` (at most MAX_BACKOFF_MS); the next success hides it.
 */
export async function poll(view, everyMs, step, note) {
  let wait = everyMs;
  let failures = 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, wait));
    if (!current(view)) return;
    try {
      const more = await step();
      if (!current(view)) return;
      failures = 0;
      wait = everyMs;
      note.hidden = true;
      if (!more) return;
    } catch (ex) {
      // An ended session shows the sign-in form (the API client does that); nothing to retry here.
      if (!current(view) || ex.status === 401) return;
      failures++;
      wait = Math.min(MAX_BACKOFF_MS, everyMs * 2 ** failures);
      const why = ex.status === 0 || ex.status >= 500 ? "The server cannot be reached" : `The server refused the refresh (${ex.message})`;
      fill(note, h("strong", why), ` (${failures} failed ${failures === 1 ? "try" : "tries"}); trying again in ${Math.round(wait / 1000)} s. What is shown may be out of date.`);
      note.hidden = false;
    }
  }
}
