// Server-rendered pages (sign-in, consent, errors, account): plain HTML that works without
// JavaScript; every interpolated value is escaped.

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f5f6f8;color:#1d2330;margin:0}
main{max-width:760px;margin:48px auto;background:#fff;border:1px solid #dde1e7;border-radius:10px;padding:32px 40px}
h1{font-size:1.45rem;margin:0 0 8px}h2{font-size:1.1rem;margin:28px 0 8px}
p.lead{color:#4a5363;margin:0 0 20px}label{display:block;margin:14px 0 4px;font-weight:600}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=datetime-local],select{width:100%;box-sizing:border-box;padding:9px 10px;border:1px solid #c4cad3;border-radius:6px;font-size:1rem}
.check{display:flex;gap:10px;align-items:flex-start;margin:10px 0;font-weight:400}.check input{margin-top:4px}
.hint{color:#5d6675;font-size:.9rem;font-weight:400}.error{background:#fdecec;border:1px solid #f3b4b4;color:#8a1c1c;padding:10px 12px;border-radius:6px;margin:12px 0}
.notice{background:#eaf6ee;border:1px solid #a9d8b8;padding:10px 12px;border-radius:6px;margin:12px 0}
.actions{display:flex;gap:12px;margin-top:24px}button{padding:10px 18px;border-radius:6px;border:1px solid #2456c7;background:#2f66e0;color:#fff;font-size:1rem;cursor:pointer}
button.secondary{background:#fff;color:#2f66e0}button.danger{background:#c62f2f;border-color:#a52424}
table{width:100%;border-collapse:collapse;margin-top:8px;font-size:.92rem}th,td{text-align:left;padding:8px 6px;border-bottom:1px solid #e6e9ee;vertical-align:top}
code{background:#f0f2f5;padding:2px 5px;border-radius:4px;overflow-wrap:anywhere}.secret{font-size:1.05rem;display:block;padding:10px;margin:8px 0}
.table-wrap{overflow-x:auto;max-width:100%}
@media (max-width:640px){main{margin:0;border-radius:0;border-left:0;border-right:0;padding:20px 14px}}
`;

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** Hidden inputs carrying `fields` through a form post. */
export function hidden(fields: Record<string, string | null | undefined>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
}

/** The sign-in page; `token` is the form's (sign-in.ts), bound to a short-lived cookie. */
export function signInPage(action: string, returnTo: string, token: string, error?: string, email = ''): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1><p class="lead">Sign in with your account to continue.</p>${error ? `<div class="error" role="alert">${esc(error)}</div>` : ''}
<form method="post" action="${esc(action)}">${hidden({ return_to: returnTo, signin_token: token })}
<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="username" required value="${esc(email)}">
<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div></form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${esc(title)}</h1><div class="error" role="alert">${esc(message)}</div>`);
}
