// The console's one stylesheet, served by the service from its own origin (no font, icon or script
// from anywhere else). Colours keep WCAG AA contrast on their backgrounds (axe-core checks it).

export const CONSOLE_CSS = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d2330;margin:0;line-height:1.45}
a{color:#1a4fc4}a:focus-visible,button:focus-visible,select:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
header.top{display:flex;justify-content:space-between;align-items:center;gap:16px;background:#16233b;color:#fff;padding:10px 24px}
header.top a.app{color:#fff;font-weight:700;text-decoration:none;font-size:1.05rem}
header.top .who{display:flex;gap:14px;align-items:center;font-size:.92rem}header.top .muted{color:#d5dbe6}
.inline-form{display:inline;margin:0}
.link-button{background:none;border:1px solid #d5dbe6;color:#fff;border-radius:5px;padding:4px 10px;font-size:.9rem;cursor:pointer}
nav{background:#fff;border-bottom:1px solid #d9dde4;padding:0 24px}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 18px;margin:0;padding:8px 0;align-items:center}
nav a{text-decoration:none;padding:4px 2px;display:inline-block}nav a[aria-current=page]{font-weight:700;color:#16233b;border-bottom:3px solid #1a4fc4}
nav .brand-name{font-weight:700;color:#16233b;padding-left:14px;border-left:1px solid #d9dde4}
main{max-width:1180px;margin:24px auto;background:#fff;border:1px solid #d9dde4;border-radius:10px;padding:24px 32px}
h1{font-size:1.45rem;margin:0 0 6px}h2{font-size:1.12rem;margin:26px 0 8px}h3{font-size:1rem;margin:18px 0 6px}
p.lead{color:#444c5a;margin:0 0 16px}.muted,.hint{color:#535b69;font-size:.9rem}
table{width:100%;border-collapse:collapse;margin:8px 0 4px;font-size:.92rem}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{text-align:left;padding:7px 8px;border-bottom:1px solid #e3e6eb;vertical-align:top}th{background:#f7f8fa;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.total td{font-weight:700;border-top:2px solid #9aa3b2;background:#f7f8fa}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:.82rem;font-weight:600;background:#e8ebf0;color:#2a3240;white-space:nowrap}
.badge-active,.badge-published,.badge-succeeded,.badge-live{background:#dcf1e2;color:#155c2c}
.badge-paused,.badge-draft,.badge-queued{background:#eceff3;color:#333b48}
.badge-waiting_review,.badge-publishing,.badge-running,.badge-shadow{background:#fdf0cf;color:#5f4500}
.badge-failed,.badge-publish_failed,.badge-rejected,.badge-canceled,.badge-timed_out{background:#fbe1e1;color:#8a1c1c}
.notice{background:#e7f5eb;border:1px solid #9fd3ae;color:#14532a;padding:10px 12px;border-radius:6px;margin:0 0 14px}
.error{background:#fdecec;border:1px solid #f0b1b1;color:#8a1c1c;padding:10px 12px;border-radius:6px;margin:0 0 14px}
.error ul{margin:6px 0 0;padding-left:20px}
.empty{background:#f7f8fa;border:1px dashed #b9c0cc;border-radius:6px;padding:12px 14px;color:#3b4351}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:14px;margin:12px 0}
.card{border:1px solid #d9dde4;border-radius:8px;padding:12px 14px;background:#fbfcfd}
.card h2,.card h3{margin:0 0 6px;font-size:1.02rem}
.counts{display:flex;gap:14px;flex-wrap:wrap;margin:6px 0 0;padding:0;list-style:none;font-size:.92rem}
.board{display:flex;gap:14px;overflow-x:auto;align-items:flex-start;padding-bottom:6px}
.column{min-width:250px;flex:1;background:#f4f5f7;border:1px solid #d9dde4;border-radius:8px;padding:10px}
.column h2{font-size:1rem;margin:0 0 8px}.column .card{background:#fff;margin:0 0 10px}
form.filters,form.query{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:flex-end;margin:8px 0 16px;padding:12px;background:#f7f8fa;border:1px solid #e3e6eb;border-radius:8px}
.field{display:flex;flex-direction:column;gap:3px}
label{font-weight:600;font-size:.9rem}
input,select,textarea{font:inherit;padding:6px 8px;border:1px solid #8d96a5;border-radius:5px;background:#fff;color:#1d2330}
textarea{width:100%;min-height:56px}
button{font:inherit;padding:7px 14px;border-radius:6px;border:1px solid #1a4fc4;background:#1a4fc4;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1a4fc4}button.danger{background:#b02a2a;border-color:#8f1f1f}
.decide{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-end;margin-top:10px}.decide .field{flex:1;min-width:240px}
.tree ul{list-style:none;margin:4px 0 4px 20px;padding:0}.tree>ul{margin-left:0}
.tree li{margin:6px 0}.node{display:flex;gap:10px;align-items:center;flex-wrap:wrap;border:1px solid #e3e6eb;border-radius:6px;padding:6px 10px;background:#fbfcfd}
.node .level{font-size:.78rem;text-transform:uppercase;letter-spacing:.04em;color:#535b69;min-width:58px}
.thumb{width:48px;height:48px;object-fit:cover;border-radius:4px;border:1px solid #d9dde4;background:#eceff3}
figure.chart{margin:10px 0 6px}figure.chart svg{width:100%;height:auto;max-width:980px;display:block}
figure.chart figcaption{font-size:.9rem;color:#444c5a;margin-top:4px}
.legend{display:flex;gap:16px;list-style:none;padding:0;margin:4px 0;font-size:.88rem}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.sw-spend{background:#1a4fc4}.sw-revenue{background:#1d7a3e}.sw-roas{background:#a05a00}
.pager{display:flex;gap:16px;margin:10px 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:8px 0}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.sign-in{max-width:420px}.sign-in input{width:100%}.sign-in .field{margin:10px 0}
code{background:#eef0f3;padding:1px 5px;border-radius:4px;font-size:.88em;overflow-wrap:anywhere}
main{overflow-wrap:break-word}h1,h2,h3,.node strong,.card h2,.card h3{overflow-wrap:anywhere}
.table-wrap{overflow-x:auto;max-width:100%;margin:8px 0 4px}.table-wrap>table{margin:0}
.live-controls{display:inline-flex;flex-wrap:wrap;gap:6px;align-items:center;margin-left:auto}.live-controls input{width:7em;padding:3px 6px}button.small{padding:3px 10px;font-size:.86rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip-link{position:absolute;left:8px;top:-48px;background:#fff;color:#1a4fc4;padding:8px 12px;border-radius:6px;z-index:10}.skip-link:focus{top:8px}
header.top a.account-link{color:#fff;font-size:.9rem}
@media (max-width:640px){
header.top{flex-wrap:wrap;padding:10px 14px}header.top .who{flex-wrap:wrap;gap:8px 12px}
nav{padding:0 14px}
main{margin:0;border-radius:0;border-left:0;border-right:0;padding:16px 14px}
dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin:0 0 8px}
.cards{grid-template-columns:1fr}
form.filters,form.query{flex-direction:column;align-items:stretch}
.decide .field{min-width:0}
.column{min-width:220px}
th,td{padding:6px 6px}
}
`;
