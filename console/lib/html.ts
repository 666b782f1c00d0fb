export { html, render } from 'htm/preact'
