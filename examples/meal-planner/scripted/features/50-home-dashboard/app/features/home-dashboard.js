// Hook on /: a signed-in user goes straight to the dashboard (the message of the last action goes along).
export function before(ctx) {
  if (ctx.user && ctx.method === 'GET') ctx.redirect('/dashboard');
}
