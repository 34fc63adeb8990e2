/** The HTML report's stylesheet (inlined: the page loads nothing). */
export const REPORT_CSS = `
:root { --fg: #1d232b; --muted: #5b6673; --line: #d9dee4; --bg: #fff; --soft: #f4f6f8; --accent: #0072B2; --pub: #fbf6e9; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 1440px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 6px; padding-top: 6px; border-top: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 4px; }
p.note, .muted { color: var(--muted); margin: 2px 0 8px; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 12.5px; }
nav { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 8px 0 0; }
nav a { color: var(--accent); text-decoration: none; }
nav a:hover { text-decoration: underline; }
#errors { background: #fde8e8; color: #8a1111; border: 1px solid #e6a1a1; padding: 8px 12px; border-radius: 6px; margin: 10px 0; white-space: pre-wrap; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(205px, 1fr)); gap: 10px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; background: var(--soft); }
.card .goal { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
.card .pick { font: 600 15px/1.3 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; margin: 3px 0; }
.card .figure { font-size: 20px; font-weight: 600; }
.card .detail { color: var(--muted); font-size: 12.5px; margin-top: 3px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 12px; }
.chart-card { border: 1px solid var(--line); border-radius: 8px; padding: 6px 8px 4px; position: relative; margin: 0; min-width: 0; }
.chart-box { position: relative; height: 280px; }
.chart-card button { position: absolute; top: 6px; right: 8px; z-index: 1; font-size: 11px; padding: 1px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; color: var(--muted); cursor: pointer; }
.table-tools { display: flex; gap: 10px; align-items: center; margin: 4px 0; }
.table-tools input { font: inherit; padding: 3px 8px; border: 1px solid var(--line); border-radius: 5px; width: 260px; }
.table-wrap { max-height: 70vh; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.table-wrap.short { max-height: none; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child, th.id, td.id { text-align: left; }
td.id { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 12.5px; }
thead th { white-space: normal; }
thead th { position: sticky; top: 0; background: #eef1f4; z-index: 1; font-weight: 600; }
table.sortable thead th { cursor: pointer; user-select: none; }
table.sortable thead th[aria-sort="ascending"]::after { content: " ▲"; font-size: 10px; }
table.sortable thead th[aria-sort="descending"]::after { content: " ▼"; font-size: 10px; }
tbody tr:hover { background: #f3f8fc; }
td.text { text-align: left; white-space: normal; }
th.published, td.published { background: var(--pub); color: #5a4a1a; }
td.published { font-style: italic; vertical-align: top; }
th.published.last, td.published.last { border-right: 2px solid #d8c48c; }
.failed { color: #a21; }
.doubt { color: #8a5300; }
p.doubt { background: #fdf3e1; border: 1px solid #ecd3a5; padding: 6px 10px; border-radius: 6px; }
ul.method li { margin: 3px 0; }
dl.machine { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 4px 0; }
dl.machine dt { color: var(--muted); }
dl.machine dd { margin: 0; }
footer { max-width: 1440px; margin: 24px auto; padding: 0 20px; color: var(--muted); font-size: 12px; }
`;
