// The API reference: Swagger UI reading a document the sandbox serves. The
// document's `servers` is replaced by this page's own origin, so that "Try
// it out" calls the sandbox the browser reached, whatever name it used.
const mounts = { 'payments-api': '/api/v2', 'control-api': '/__sandbox' };
const asked = new URLSearchParams(location.search).get('document');
const name = Object.hasOwn(mounts, asked ?? '') ? asked : 'payments-api';
const target = document.getElementById('reference');

for (const link of document.querySelectorAll('nav a[data-document]')) {
  if (link.dataset.document === name) link.setAttribute('aria-current', 'page');
}

async function show() {
  const response = await fetch(`/__sandbox/openapi/${name}.json`, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET /__sandbox/openapi/${name}.json answered ${response.status}`);
  const spec = await response.json();
  spec.servers = [{ url: location.origin + mounts[name], description: 'this sandbox' }];
  // The documents name JSON Schema 2020-12 as their dialect. Swagger UI renders
  // only OpenAPI 3.1's base dialect, which is 2020-12 with OpenAPI's keywords,
  // and shows a warning for any other name: the page reads them as base.
  if (spec.jsonSchemaDialect === 'https://json-schema.org/draft/2020-12/schema') delete spec.jsonSchemaDialect;
  target.textContent = '';
  window.SwaggerUIBundle({
    spec,
    domNode: target,
    deepLinking: true,
    // No call to the public validator service: nothing leaves the machine.
    validatorUrl: null,
    tryItOutEnabled: false,
    defaultModelsExpandDepth: 0,
    onComplete: () => document.body.setAttribute('data-ready', 'true'),
  });
}

show().catch((error) => {
  target.textContent = '';
  const message = document.createElement('p');
  message.className = 'failed';
  message.textContent = `The API description could not be loaded: ${error.message}`;
  target.append(message);
  document.body.setAttribute('data-ready', 'failed');
});
