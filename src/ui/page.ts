import { KNOWN_BRANDS } from '../kinds/guitar';
import { FormField } from './errors';
import { GuitarObject } from './guitars';
import { age, Html, html } from './html';

/** What the add form holds: the user's input, kept across a refused submit. */
export interface FormState {
  readonly name: string;
  readonly namespace: string;
  readonly brand: string;
  readonly errors: Partial<Record<FormField, string>>;
}

export const EMPTY_FORM: FormState = { name: '', namespace: '', brand: '', errors: {} };

export interface ListPage {
  readonly guitars: GuitarObject[];
  /** Namespaces the UI may use; empty means any. */
  readonly namespaces: readonly string[];
  /** Namespaces the acting identity may not list. */
  readonly forbidden: readonly string[];
  readonly csrfToken: string;
  readonly form: FormState;
  /** A sentence at the top: what just happened, or what went wrong. */
  readonly notice?: { kind: 'info' | 'error'; text: string };
  readonly user?: string;
  /** The user signed in with the login form, so may sign out here (a proxy's sign-in is the proxy's). */
  readonly signOut?: boolean;
}

function layout(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<header><p class="product">cdk8s-operators</p></header>
<main id="main">
${body}
</main>
</body>
</html>
`.value;
}

/** The table's rows; also what the live feed sends, so both render alike. */
export function guitarRows(guitars: readonly GuitarObject[], now = Date.now()): Html {
  if (!guitars.length) return html`<tr><td colspan="7" class="empty">No guitars yet.</td></tr>`;
  return html`${guitars.map((g) => {
    const ns = g.metadata.namespace ?? '';
    const id = `delete-${ns}-${g.metadata.name}`;
    return html`<tr>
<th scope="row">${g.metadata.name}</th>
<td data-label="Namespace">${ns}</td>
<td data-label="Brand">${g.spec.brand}</td>
<td data-label="Verdict">${g.status?.verdict ?? html`<span class="pending">awaiting review</span>`}</td>
<td data-label="Comment">${g.status?.comment ?? ''}</td>
<td data-label="Age"><time datetime="${g.metadata.creationTimestamp ?? ''}">${age(g.metadata.creationTimestamp, now)}</time></td>
<td><a class="button danger" id="${id}" href="/guitars/${encodeURIComponent(ns)}/${encodeURIComponent(g.metadata.name)}/delete" aria-label="Delete ${g.metadata.name} in ${ns}">Delete</a></td>
</tr>
`;
  })}`;
}

/** One sentence under the heading: how many, and where. */
export function summary(guitars: readonly GuitarObject[]): string {
  return `${guitars.length} guitar${guitars.length === 1 ? '' : 's'}`;
}

function fieldError(field: FormField, form: FormState): Html {
  const message = form.errors[field];
  return message ? html`<p class="field-error" id="${field}-error">${message}</p>` : html``;
}

function describedBy(field: FormField, form: FormState): Html {
  return form.errors[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : html``;
}

function namespaceInput(page: ListPage): Html {
  const { form, namespaces } = page;
  if (namespaces.length) {
    const chosen = form.namespace || namespaces[0];
    return html`<select id="namespace" name="namespace"${describedBy('namespace', form)}>${namespaces.map((ns) => html`<option${ns === chosen ? html` selected` : html``}>${ns}</option>`)}</select>`;
  }
  const seen = [...new Set(page.guitars.map((g) => g.metadata.namespace ?? ''))].sort();
  return html`<input id="namespace" name="namespace" required autocomplete="off" list="namespaces-seen" value="${form.namespace}"${describedBy('namespace', form)}>
<datalist id="namespaces-seen">${seen.map((ns) => html`<option value="${ns}">`)}</datalist>`;
}

export function listPage(page: ListPage): string {
  const { form } = page;
  const notice = page.notice ? html`<p class="notice ${page.notice.kind}" role="${page.notice.kind === 'error' ? 'alert' : 'status'}">${page.notice.text}</p>` : html``;
  const forbidden = page.forbidden.length
    ? html`<p class="notice error">You may not list guitars in ${page.forbidden.map((ns) => ns || 'all namespaces').join(', ')}.</p>`
    : html``;
  return layout(
    'Guitars',
    html`<h1>Guitars</h1>
${page.user ? html`<p class="user">Signed in as <strong>${page.user}</strong>.</p>` : html``}
${page.signOut ? html`<form method="post" action="/logout" class="sign-out"><input type="hidden" name="_csrf" value="${page.csrfToken}"><button type="submit" class="button">Sign out</button></form>` : html``}
${notice}${forbidden}
<section aria-labelledby="list-heading">
<h2 id="list-heading">Reviewed guitars</h2>
<p id="live" role="status" aria-live="polite">${summary(page.guitars)}</p>
<noscript><p>Reload the page to see changes.</p></noscript>
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="list-heading">
<table id="guitars">
<thead><tr><th scope="col">Name</th><th scope="col">Namespace</th><th scope="col">Brand</th><th scope="col">Verdict</th><th scope="col">Comment</th><th scope="col">Age</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${guitarRows(page.guitars)}</tbody>
</table>
</div>
</section>
<section aria-labelledby="add-heading">
<h2 id="add-heading">Add a guitar</h2>
<form method="post" action="/guitars" id="add-form" novalidate>
<input type="hidden" name="_csrf" value="${page.csrfToken}">
<div class="field"><label for="name">Name</label>
<input id="name" name="name" required autocomplete="off" spellcheck="false" value="${form.name}"${describedBy('name', form)}>
${fieldError('name', form)}</div>
<div class="field"><label for="namespace">Namespace</label>
${namespaceInput(page)}
${fieldError('namespace', form)}</div>
<div class="field"><label for="brand">Brand</label>
<input id="brand" name="brand" required autocomplete="off" list="brands" value="${form.brand}"${describedBy('brand', form)}>
<datalist id="brands">${KNOWN_BRANDS.map((b) => html`<option value="${b}">`)}</datalist>
${fieldError('brand', form)}</div>
<button type="submit">Add guitar</button>
</form>
</section>`,
  );
}

export function confirmDeletePage(guitar: GuitarObject, csrfToken: string): string {
  const ns = guitar.metadata.namespace ?? '';
  const name = guitar.metadata.name;
  return layout(
    `Delete ${name}?`,
    html`<h1>Delete guitar ${name}?</h1>
<p>The guitar <strong>${name}</strong> (brand ${guitar.spec.brand}) in namespace <strong>${ns}</strong> will be deleted with its review. This cannot be undone.</p>
<form method="post" action="/guitars/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/delete">
<input type="hidden" name="_csrf" value="${csrfToken}">
<button type="submit" class="danger" autofocus>Delete ${name}</button>
<a class="button" href="/">Cancel</a>
</form>`,
  );
}

/**
 * Sign-in with a Kubernetes bearer token, as Kubernetes Dashboard's: the UI keeps it in an
 * HttpOnly cookie and sends it with each request to the API server, which decides.
 */
export function loginPage(csrfToken: string, message: string, error?: string): string {
  return layout(
    'Sign in',
    html`<h1>Sign in</h1>
<p${error ? html` class="notice error" role="alert"` : html``}>${message}</p>
<form method="post" action="/login" id="login-form" novalidate>
<input type="hidden" name="_csrf" value="${csrfToken}">
<div class="field"><label for="token">Bearer token</label>
<input id="token" name="token" type="password" required autocomplete="off" spellcheck="false"${error ? html` aria-invalid="true" aria-describedby="token-error"` : html``}>
${error ? html`<p class="field-error" id="token-error">${error}</p>` : html``}</div>
<button type="submit">Sign in</button>
</form>
<p>Your token decides what you may see and change: the UI sends it to the Kubernetes API server with each request and keeps it only in a cookie of this browser. <code>kubectl create token &lt;service-account&gt; -n &lt;namespace&gt;</code> makes one for a ServiceAccount.</p>`,
  );
}

export function errorPage(status: number, message: string): string {
  return layout(
    `Error ${status}`,
    html`<h1>${TITLES[status] ?? 'Something went wrong'}</h1>
<p class="notice error" role="alert">${message}</p>
<p><a href="/">Back to the guitars</a></p>`,
  );
}

const TITLES: Record<number, string> = {
  400: 'The request was not valid',
  401: 'Not signed in',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  429: 'Too many live pages',
  502: 'The Kubernetes API server is unavailable',
};
