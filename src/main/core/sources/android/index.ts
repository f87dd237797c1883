export { createAndroidSource, type AndroidSourceOptions } from './androidSource.ts';
