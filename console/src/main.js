import {mount} from 'svelte'
import App from './App.svelte'
import {applyTheme, savedTheme} from './theme.js'
import './console.css'

applyTheme(savedTheme())
mount(App, {target: /** @type {HTMLElement} */ (document.getElementById('console'))})
