import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { api, preloadedFirstPage } from './lib/api.ts';
import { adoptFirstPage, prefetchFirstPage } from './lib/framePager.svelte.ts';
import { router } from './lib/router.svelte.ts';

// The timeline's first page goes out before anything is drawn: it is what the first screen waits
// for. The server names it in a preload link (the browser asked for it while this script loaded);
// elsewhere it is asked for now, the rows that fit the window (72 px each) with their thumbnails.
if (router.route.screen === 'timeline') {
  const first = preloadedFirstPage();
  if (first) adoptFirstPage(api.framesAt(first.url), first.anchorMs, first.pageSize);
  else prefetchFirstPage((q, signal) => api.frames(q, signal), Math.ceil(window.innerHeight / 72));
}

const target = document.getElementById('app');
if (!target) throw new Error('#app is missing from index.html');
export default mount(App, { target });
