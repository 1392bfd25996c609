// @ts-check
// The code editor proper (CodeMirror 6), in its own chunk: CodeEditor.svelte imports it when an
// editor opens, so the console's first load carries none of it. Line numbers, undo, bracket
// matching, colouring by class (console.css gives the colours, light and dark), the server's
// problem as a lint diagnostic at its line and column. Tab is left to move the focus (no trap).
import {defaultKeymap, history, historyKeymap} from '@codemirror/commands'
import {bracketMatching, indentOnInput, syntaxHighlighting} from '@codemirror/language'
import {setDiagnostics} from '@codemirror/lint'
import {Compartment, EditorState} from '@codemirror/state'
import {EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers} from '@codemirror/view'
import {classHighlighter} from '@lezer/highlight'
import {languageOf} from './languages.js'

/**
 * Offset of a 1-based line and column in the document (clamped to the line).
 * @param {import('@codemirror/state').Text} doc
 * @param {number} line
 * @param {number | null} column
 */
export function offsetOf(doc, line, column) {
  const l = doc.line(Math.min(Math.max(line, 1), doc.lines))
  return Math.min(l.from + Math.max((column ?? 1) - 1, 0), l.to)
}

/**
 * @typedef {{message: string, line: number | null, column: number | null}} Problem
 * @typedef {{parent: HTMLElement, doc: string, language: string, attributes: Record<string, string>, onchange: (text: string) => void}} EditorOptions
 */

/** An editor in `parent`; answers the handle CodeEditor.svelte drives. @param {EditorOptions} options */
export function createEditor({parent, doc, language, attributes, onchange}) {
  const lang = new Compartment()
  const attrs = new Compartment()
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), history(), indentOnInput(), bracketMatching(),
        syntaxHighlighting(classHighlighter), EditorView.lineWrapping,
        keymap.of([...defaultKeymap, ...historyKeymap]),
        lang.of([]), attrs.of(EditorView.contentAttributes.of(attributes)),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onchange(update.state.doc.toString())
        }),
      ],
    }),
  })
  let wanted = language
  const setLanguage = async (/** @type {string} */ name) => {
    wanted = name
    const support = await languageOf(name)
    if (wanted === name) view.dispatch({effects: lang.reconfigure(support)})
  }
  setLanguage(language)
  return {
    view,
    setLanguage,
    /** The text, when it was changed outside the editor (a version taken from the server). */
    setText(/** @type {string} */ text) {
      if (text !== view.state.doc.toString()) view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: text}})
    },
    setAttributes(/** @type {Record<string, string>} */ attributes) {
      view.dispatch({effects: attrs.reconfigure(EditorView.contentAttributes.of(attributes))})
    },
    /** The problem as a diagnostic: from its column to the end of its line (or a whole first line when it has no place). */
    setProblem(/** @type {Problem | null} */ problem) {
      const doc = view.state.doc
      const diagnostics = []
      if (problem) {
        const from = problem.line ? offsetOf(doc, problem.line, problem.column) : 0
        const to = Math.max(doc.lineAt(from).to, Math.min(from + 1, doc.length))
        diagnostics.push({from, to, severity: /** @type {const} */ ('error'), message: problem.message})
      }
      view.dispatch(setDiagnostics(view.state, diagnostics))
    },
    /** Puts the caret at the problem's place. */
    goTo(/** @type {number} */ line, /** @type {number | null} */ column) {
      const at = offsetOf(view.state.doc, line, column)
      view.dispatch({selection: {anchor: at}, scrollIntoView: true})
      view.focus()
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  }
}
