import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { api } from './lib/api.ts';
import { prefetchFirstPage } from './lib/framePager.svelte.ts';
import { router } from './lib/router.svelte.ts';

// The timeline's first page goes out before anything is drawn: it is what the first screen waits
// for. The rows that fit the window (72 px each) bring their thumbnails with them.
if (router.route.screen === 'timeline') prefetchFirstPage((q, signal) => api.frames(q, signal), Math.ceil(window.innerHeight / 72));

const target = document.getElementById('app');
if (!target) throw new Error('#app is missing from index.html');
export default mount(App, { target });
