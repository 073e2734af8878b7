/** GET /docs: a self-contained page (no CDN: the service runs offline) rendering /openapi.json. */
export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>newsflow API docs</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 2rem;color:#1d1d1f}
h1{margin-bottom:.2rem} .op{border:1px solid #ddd;border-radius:6px;margin:.6rem 0;padding:.4rem .8rem}
.m{display:inline-block;min-width:4.2rem;font-weight:700} .GET{color:#0a7} .POST{color:#06c} .PUT{color:#a60} .DELETE{color:#c22}
code{background:#f4f4f4;padding:0 .25rem;border-radius:3px} table{border-collapse:collapse;margin:.3rem 0}
td,th{border-bottom:1px solid #eee;padding:.15rem .6rem;text-align:left;vertical-align:top} summary{cursor:pointer}
</style></head><body>
<h1>newsflow API</h1><p id="meta">Loading <a href="/openapi.json">/openapi.json</a>…</p><div id="ops"></div>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  document.getElementById('meta').innerHTML = 'Version '+doc.info.version+' · OpenAPI '+doc.openapi+' · <a href="/openapi.json">openapi.json</a> · auth: <code>Authorization: Bearer &lt;key&gt;</code>';
  const esc = s => String(s).replace(/[&<>]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;'}[c]));
  const type = s => !s ? '' : s.$ref ? s.$ref.split('/').pop() : s.enum ? s.enum.map(esc).join(' | ') : s.anyOf ? s.anyOf.map(type).join(' | ') : s.type==='array' ? type(s.items)+'[]' : (s.type||'');
  const html = [];
  for (const [path, ops] of Object.entries(doc.paths)) for (const [m, op] of Object.entries(ops)) {
    const M = m.toUpperCase(); const sec = (op.security&&op.security[0]&&op.security[0].APIKey)||null;
    const rows = (op.parameters||[]).map(p => '<tr><td><code>'+esc(p.name)+'</code></td><td>'+p.in+'</td><td>'+esc(type(p.schema))+'</td><td>'+(p.required?'required':'')+'</td><td>'+(p.schema&&p.schema.default!==undefined?esc(JSON.stringify(p.schema.default)):'')+'</td></tr>').join('');
    html.push('<div class="op"><details><summary><span class="m '+M+'">'+M+'</span> <code>'+esc(path)+'</code> — '+esc(op.summary||'')+(sec?' <small>scopes: '+(sec.join(', ')||'any key')+'</small>':' <small>no auth</small>')+'</summary>'
      + (rows?'<table><tr><th>name</th><th>in</th><th>type</th><th></th><th>default</th></tr>'+rows+'</table>':'')
      + (op.requestBody?'<p>Body: <code>'+esc(type(Object.values(op.requestBody.content)[0].schema))+'</code></p>':'')
      + '<p>Responses: '+Object.keys(op.responses).join(', ')+'</p></details></div>');
  }
  document.getElementById('ops').innerHTML = html.join('');
});
</script></body></html>`;
}
