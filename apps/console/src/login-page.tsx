import { Box, Button, Card, CardContent, TextField, Typography } from '@mui/material'
import { useState, type FormEvent } from 'react'
import { useLogin, useNotify } from 'react-admin'

/**
 * Signing in with an operator's e-mail and password (decision 149). A refusal shows the server's
 * words (a wrong password, too many attempts) and keeps what was typed but the password.
 */
export const LoginPage = () => {
  const login = useLogin()
  const notify = useNotify()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    try {
      await login({ username: email, password })
    } catch (error) {
      setPassword('')
      notify(error instanceof Error ? error.message : 'The sign-in failed.', { type: 'error', autoHideDuration: null })
    } finally {
      setBusy(false)
    }
  }
  return (
    <Box component="main" sx={{ display: 'flex', minHeight: '100vh', alignItems: 'center', justifyContent: 'center', bgcolor: 'grey.100' }}>
      <Card sx={{ width: 380 }}>
        <CardContent>
          <Typography component="h1" variant="h5" gutterBottom>
            Lendgate console
          </Typography>
          <Box component="form" onSubmit={submit} sx={{ display: 'grid', gap: 2 }}>
            <TextField id="email" label="E-mail" type="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
            <TextField id="password" label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
            <Button type="submit" variant="contained" disabled={busy}>
              Sign in
            </Button>
          </Box>
        </CardContent>
      </Card>
    </Box>
  )
}
