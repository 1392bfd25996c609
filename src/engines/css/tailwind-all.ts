/** css engine `tailwind_all`: Tailwind's browser build on the page, every class available. */
import type {CssEngineSpec} from '../types.js'

export const tailwindAll: CssEngineSpec = {
  name: 'tailwind_all',
  browserLib: {name: 'tailwind-browser.js', pkg: '@tailwindcss/browser', file: 'dist/index.global.js'},
  packages: [],
}
