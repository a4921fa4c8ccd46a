// Small progressive enhancements: forms with data-confirm ask before they are sent; fields with data-autosubmit
// send their form as soon as they change.
document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});

document.addEventListener('change', (event) => {
  const field = event.target;
  if (field instanceof HTMLElement && field.dataset.autosubmit !== undefined) field.form?.requestSubmit();
});
