// Dark mode: follows the system (`prefers-color-scheme`) until the user picks light or dark;
// the choice is kept in this browser (localStorage) and applied as <html data-theme>.
const KEY = 'svc-console-theme'
export const THEMES = ['system', 'light', 'dark']

export function savedTheme() {
  try {
    const v = localStorage.getItem(KEY) ?? ''
    return THEMES.includes(v) ? v : 'system'
  } catch {
    return 'system'
  }
}

export function applyTheme(choice) {
  const dark = choice === 'dark' || (choice === 'system' && matchMedia('(prefers-color-scheme: dark)').matches)
  document.documentElement.dataset.theme = dark ? 'dark' : 'light'
  document.documentElement.style.colorScheme = dark ? 'dark' : 'light'
}

export function saveTheme(choice) {
  try {
    if (choice === 'system') localStorage.removeItem(KEY)
    else localStorage.setItem(KEY, choice)
  } catch {}
  applyTheme(choice)
}

matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(savedTheme()))
