// The browser door's page: textual.js connects to the URL its terminal element names, read when the page has
// loaded; it is set here, beside the page's own address, so the page works behind a reverse proxy, under a
// path, over https (wss) or http (ws) alike.
document.addEventListener("DOMContentLoaded", () => {
  const terminal = document.getElementById("terminal");
  if (terminal) {
    const url = new URL("ws", window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.search = "";
    terminal.dataset.sessionWebsocketUrl = url.href;
  }
  const again = document.getElementById("again");
  if (again) {
    again.addEventListener("click", () => window.location.reload());
  }
});
