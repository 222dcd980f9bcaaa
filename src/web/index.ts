export { webRoutes, type WebDeps } from './routes.js';
