// Entry point: load the feature modules, then start.
import './features.js';
import { start } from './core.js';

start().catch((error) => console.error('The notes app failed to start:', error));
