import {mount} from 'svelte'
import App from './App.svelte'
import './console.css'

mount(App, {target: document.getElementById('console')})
