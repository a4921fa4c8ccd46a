// The sign-up form's rules, each returning what is wrong (the sign-up page lists every problem at once).
import { findUserByEmail } from '../accounts.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailProblem(input) {
  return input.email && !EMAIL.test(input.email)
    ? 'Enter a valid email address, like name@example.com.'
    : undefined;
}

export function passwordProblem(input) {
  return input.password && input.password.length < 8
    ? 'The password must be at least 8 characters long.'
    : undefined;
}

export function takenEmailProblem(input, db) {
  return input.email && findUserByEmail(db, input.email)
    ? 'An account with this email already exists. Log in instead.'
    : undefined;
}
