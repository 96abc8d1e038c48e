new File(System.getProperty("user.home") + "/victim").deleteDir()
