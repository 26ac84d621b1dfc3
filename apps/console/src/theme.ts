import { defaultLightTheme, type RaThemeOptions } from 'react-admin'

/**
 * react-admin's light theme with colours that keep text readable (WCAG 2 AA, a contrast of 4.5:1
 * or more): the primary blue of links, buttons and the app bar, and the orange of the test world's
 * bar and banner and of the buttons that ask for a servicing action, each dark enough for white
 * text on it and for itself as text on white.
 */
export const consoleTheme: RaThemeOptions = {
  ...defaultLightTheme,
  palette: {
    ...defaultLightTheme.palette,
    primary: { main: '#1565c0' },
    warning: { main: '#b33d00' },
  },
}
