// A warning for a page opened at another address than PUBLIC_URL. The browser's own origin is what
// sign-in and setup are checked against (their Origin header must be PUBLIC_URL's), and only the
// browser knows it for sure: behind a proxy the server sees another Host. So the page checks itself.
/** An initially hidden notice and the script that shows it when location.origin is not PUBLIC_URL's. */
export function addressCheck(publicUrl: string): { html: string; script: string } {
  const origin = new URL(publicUrl).origin;
  const path = new URL(publicUrl).pathname.replace(/\/+$/, "");
  const html = `<p id="address-warning" class="warn" role="alert" hidden></p>`;
  // No user input reaches the script: the origin comes from the server's own setting.
  const script = `(() => {
  const expected = ${JSON.stringify(origin)}, path = ${JSON.stringify(path)};
  if (location.origin === expected) return;
  const box = document.getElementById("address-warning");
  box.textContent = "You opened this page at " + location.origin + ", but Mapstead's PUBLIC_URL is " + expected +
    ": signing in and setup from this address will be refused. If " + location.origin + " is this server's address, set PUBLIC_URL=" +
    location.origin + path + " and restart Mapstead; otherwise open " + expected + path + ".";
  box.hidden = false;
})();`;
  return { html, script };
}

export const addressWarningStyle = ".warn{padding:.8rem;border-radius:.5rem;background:#ffebe9;color:#82071e}";
