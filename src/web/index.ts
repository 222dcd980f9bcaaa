export { webRoutes, type WebDeps } from './routes.js';
export { html, raw, escapeHtml, SafeHtml } from './html.js';
