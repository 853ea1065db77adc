import { html } from './html.js';

/** The sign-in form for token-only setups (basic auth uses the browser's own prompt). */
export function loginPage(base: string, next: string, message?: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in · bullbeat</title>
<link rel="stylesheet" href="${base}/assets/style.css"></head>
<body><main class="login panel">
<h1>bullbeat</h1>
${message !== undefined ? html`<div class="flash bad">${message}</div>` : ''}
<form method="post" action="${base}/login">
  <input type="hidden" name="next" value="${next}">
  <label for="token">Dashboard token</label>
  <input id="token" name="token" type="password" autofocus required>
  <button type="submit" class="primary">Sign in</button>
</form>
</main></body></html>`.value;
}
