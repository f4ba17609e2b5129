// The API reference at /docs: renders /openapi.json with no framework and no innerHTML.
const h = (tag, text, cls) => {
  const el = document.createElement(tag);
  if (text !== undefined) el.textContent = text;
  if (cls) el.className = cls;
  return el;
};
const main = document.getElementById("main");
const spec = await fetch("/openapi.json").then((r) => r.json());
main.replaceChildren(h("h1", `${spec.info.title} API ${spec.info.version}`), h("p", spec.info.description, "muted"));
const refName = (schema) => (schema?.$ref ?? "").split("/").pop();
for (const [path, methods] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    const section = h("section", undefined, "panel");
    const title = h("h2");
    title.append(h("span", method.toUpperCase(), "pill"), ` ${path}`);
    section.append(title, h("p", op.summary));
    if (op.description) section.append(h("p", op.description, "muted"));
    const auth = op.security.length === 0 ? "no credential" : op.security.map((s) => Object.keys(s)[0]).join(" or ");
    section.append(h("p", `Auth: ${auth}`, "muted"));
    if (op.parameters?.length)
      section.append(h("p", `Parameters: ${op.parameters.map((p) => `${p.name} (${p.in}${p.required ? ", required" : ""})`).join(", ")}`));
    const body = refName(op.requestBody?.content?.["application/json"]?.schema);
    if (body) section.append(h("p", `Body: ${body}`));
    for (const [status, res] of Object.entries(op.responses)) {
      const json = res.content?.["application/json"]?.schema;
      const shape = json?.properties?.data ? refName(json.properties.data) : refName(json);
      section.append(h("p", `${status}: ${res.description}${shape ? ` — ${shape}` : ""}`, "muted"));
    }
    main.append(section);
  }
}
const schemas = h("section", undefined, "panel");
schemas.append(h("h2", "Schemas"));
for (const [name, schema] of Object.entries(spec.components.schemas)) {
  const details = h("details");
  details.append(h("summary", name), h("pre", JSON.stringify(schema, null, 2)));
  schemas.append(details);
}
main.append(schemas);
