/**
 * The page's style sheet and its one script, served from /static/ so the Content-Security-Policy
 * can forbid inline script and style. Kept here, not in files beside the code, so the
 * compiled program carries them wherever it is installed.
 */
export const STYLE_CSS = `
:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.5; color: #1b1b1b; background: #fff; }
body { margin: 0; }
header { background: #1d3a5f; color: #fff; padding: 0.5rem 1rem; }
header .product { margin: 0; font-weight: 600; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 0.5rem; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid #c8c8c8; vertical-align: top; overflow-wrap: break-word; }
thead th, .button, .pending { white-space: nowrap; }
thead th { background: #eef2f7; }
.pending { color: #595959; font-style: italic; }
.empty { color: #595959; }
form { display: grid; gap: 0.75rem; max-width: 28rem; }
.field { display: grid; gap: 0.25rem; }
label { font-weight: 600; }
input, select, button, .button { font: inherit; padding: 0.45rem 0.6rem; border-radius: 4px; }
input, select { border: 1px solid #6b6b6b; }
input[aria-invalid="true"], select[aria-invalid="true"] { border: 2px solid #b00020; }
button, .button { border: 1px solid #1d3a5f; background: #1d3a5f; color: #fff; cursor: pointer; text-decoration: none; display: inline-block; justify-self: start; }
.button { background: #fff; color: #1d3a5f; }
.danger, button.danger { background: #b00020; border-color: #b00020; color: #fff; }
a.button.danger { background: #fff; color: #b00020; }
:focus-visible { outline: 3px solid #f2a900; outline-offset: 2px; }
.field-error { color: #b00020; margin: 0; }
.notice { padding: 0.5rem 0.75rem; border-radius: 4px; }
.notice.info { background: #e6f4ea; }
.notice.error { background: #fde7ea; color: #7a0016; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@media (max-width: 40rem) {
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table, tbody, tr, th, td { display: block; }
  tr { border: 1px solid #c8c8c8; border-radius: 4px; margin-bottom: 0.75rem; }
  th, td { border: 0; }
  td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
}
`;

/**
 * Live updates: the server pushes the table's rows (rendered and escaped on the server, the
 * same as on a reload) over server-sent events. Without JavaScript the page is the same, only
 * a reload shows changes. Keyboard focus on a row's button survives an update.
 */
export const APP_JS = `'use strict';
(function () {
  var table = document.getElementById('guitars');
  var live = document.getElementById('live');
  if (!table || !window.EventSource) return;
  var source = new EventSource('/events');
  source.addEventListener('guitars', function (event) {
    var data = JSON.parse(event.data);
    var focused = document.activeElement && table.contains(document.activeElement) ? document.activeElement.id : '';
    table.tBodies[0].innerHTML = data.rows;
    if (live.textContent !== data.summary) live.textContent = data.summary;
    if (focused) {
      var again = document.getElementById(focused);
      if (again) again.focus();
    }
    document.body.setAttribute('data-live', String(data.version));
  });
})();
`;
