// mockyard's look for Swagger UI at /docs: title, favicon, logo, and a script that authorizes the page
// with fixture credentials on load, so "Try it out" then "Execute" works without typing a key.
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f6f5c"/><path d="M7 24V9l9 9 9-9v15" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round"/></svg>`;
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 150 32"><rect width="32" height="32" rx="6" fill="#1f6f5c"/><path d="M7 24V9l9 9 9-9v15" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round"/><text x="40" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff">mockyard</text></svg>`;

const CSS = `.swagger-ui .topbar { background-color: #17352e; }
.swagger-ui .topbar .download-url-wrapper { display: none; }`;

/**
 * Swagger UI keeps its instance in a local variable; this script wraps the constructor (it runs before
 * the initializer's window.onload) to authorize each scheme once the document has loaded.
 * preauthorizeApiKey also fills http bearer schemes.
 */
const preauthorize = (credentials: Record<string, string>): string => `(function () {
  var credentials = ${JSON.stringify(credentials).replace(/</g, '\\u003c')};
  var original = window.SwaggerUIBundle;
  if (!original) return;
  var wrapped = function (config) {
    var ui;
    var onComplete = config.onComplete;
    var intercept = config.requestInterceptor;
    ui = original(Object.assign({}, config, {
      // mockyard's own state-changing routes refuse page requests without this header (CSRF guard);
      // this page is mockyard's own.
      requestInterceptor: function (request) {
        if (request.url.indexOf('/__mockyard/') !== -1) request.headers['X-Mockyard-Admin'] = '1';
        return intercept ? intercept(request) : request;
      },
      onComplete: function () {
        Object.keys(credentials).forEach(function (scheme) { ui.preauthorizeApiKey(scheme, credentials[scheme]); });
        if (onComplete) onComplete.apply(this, arguments);
      },
    }));
    window.ui = ui;
    return ui;
  };
  Object.assign(wrapped, original);
  window.SwaggerUIBundle = wrapped;
})();`;

export function brandingOf(credentials: Record<string, string>) {
  return {
    theme: {
      title: 'mockyard API docs',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: ICON }],
      css: [{ filename: 'mockyard.css', content: CSS }],
      js: [{ filename: 'mockyard-authorize.js', content: preauthorize(credentials) }],
    },
    logo: { type: 'image/svg+xml', content: LOGO, href: '/docs', target: '_self' as const },
  };
}
