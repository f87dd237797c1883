import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { api } from './lib/api.ts';
import { prefetchFirstPage } from './lib/framePager.svelte.ts';
import { router } from './lib/router.svelte.ts';

// The timeline's first page goes out before anything is drawn: it is what the first screen waits for.
if (router.route.screen === 'timeline') prefetchFirstPage((q, signal) => api.frames(q, signal));

const target = document.getElementById('app');
if (!target) throw new Error('#app is missing from index.html');
export default mount(App, { target });
