// The one way the console deletes, revokes or unpublishes anything: ask in the dialog, send the request
// while the dialog stays open (its button busy), say what happened. A refusal from the API (a 409 naming
// what still uses the thing) is shown in the dialog with its message; nothing changes on screen.
import { api } from "./api.js";
import { confirmDialog, toast } from "./widgets.js";

/**
 * `question`: [title, text, button label] of the dialog; `path`: what to DELETE (or to send `method`
 * to, such as POST …/unpublish); `done`: the toast on success; `after`: runs once the request succeeded
 * (refresh a list, navigate away).
 */
export async function confirmAndDelete({ question: [title, text, okLabel], path, method = "DELETE", done, after }) {
  if (!(await confirmDialog(title, text, okLabel, () => api(method, path)))) return;
  toast(done);
  try {
    await after?.();
  } catch (ex) {
    toast(ex.message, "error");
  }
}
