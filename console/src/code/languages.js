// @ts-check
// The languages of the code editor, each loaded on demand (its own chunk). The keys are the
// languages the engine registry declares (`GET /svc/engines.json`: `language` of an engine), plus
// `liquid` (prompts) and `json`. The console never names an engine: a new engine written in one
// of these languages needs nothing here.

/** @type {Record<string, () => Promise<import('@codemirror/state').Extension>>} */
export const LANGUAGES = {
  ts: () => import('@codemirror/lang-javascript').then((m) => m.javascript({typescript: true})),
  tsx: () => import('@codemirror/lang-javascript').then((m) => m.javascript({typescript: true, jsx: true})),
  json: () => import('@codemirror/lang-javascript').then((m) => m.javascript()),
  html: () => import('@codemirror/lang-html').then((m) => m.html()),
  // A component file: markup with <script lang="ts"> and <style> blocks (HTML mode parses those).
  'svelte+ts': () => import('@codemirror/lang-html').then((m) => m.html()),
  'vue+ts': () => import('@codemirror/lang-vue').then((m) => m.vue()),
  liquid: () => import('@codemirror/lang-liquid').then((m) => m.liquid()),
}

/** The language support of `name`, or none (plain text) for a language this table does not know. */
export async function languageOf(/** @type {string} */ name) {
  return (await LANGUAGES[name]?.()) ?? []
}
